topology show ../data/kueue/nodes.json:racks=2
