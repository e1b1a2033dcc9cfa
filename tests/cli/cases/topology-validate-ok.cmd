topology validate gb200-nvl72 dgx-b300:nodes=40 ../../samples/topograph-nvl72.yaml
