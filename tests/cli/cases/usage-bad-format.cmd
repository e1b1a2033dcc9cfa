topology show gb200-nvl72 --format xml
