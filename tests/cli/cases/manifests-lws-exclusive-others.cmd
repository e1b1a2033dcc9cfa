# LWS exclusive-topology (racks here): the 3 groups take 3 racks no other job
# uses, so the 8-GPU job goes to the fourth rack and a 24-GPU job finds only
# 8 free GPUs outside them.
plan ../data/manifests/kind-tas-cluster.yaml ../data/manifests/docs_examples_sample_lws-exclusive-placement.yaml inputs/jobs-beside-lws.yaml --level-label cloud.google.com/gke-nodepool=rack
