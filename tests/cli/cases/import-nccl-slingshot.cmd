# A real RCCL dump of an HPE Slingshot node: its NICs say 200000000 Mb/s, kept and pointed out.
import --from nccl-xml ../data/nccl-xml/rccl-topo_4p_940.xml
