# LWS's DisaggregatedSet samples (2 slices of prefill and decode; 3 roles in
# one slice): the webhook accepts them, so they read and check ok; pods
# without GPUs count one each.
check gb200-nvl72:racks=2 ../data/lws/config_samples_disaggregatedset_v1_disaggregatedset.yaml ../data/lws/config_samples_disaggregatedset_v1_3role.yaml
