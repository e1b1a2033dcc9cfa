# A node imported from an NCCL dump fills every host of a fabric import.
import --from nccl-xml ../data/nccl-xml/simai-topo_8A100_4CX6.xml -o $OUT/a100.yaml && "$bin" import --from ibnetdiscover ../data/ibnetdiscover/topograph-example.out --node-type $OUT/a100.yaml
