topology show pcie-8gpu:nodes=8
