topology show gb200-nvl27
