# Grove's own samples without topology constraints (the user guide's
# disaggregated and pipeline sets, the MNNVL mix): Grove accepts them, so
# they read and check ok; pods without GPUs count one each.
check gb200-nvl72:racks=2 ../data/grove/operator_samples_user-guide_01_core-concepts_multi-node-disaggregated.yaml ../data/grove/operator_samples_user-guide_01_core-concepts_complete-inference-pipeline.yaml ../data/grove/operator_e2e_yaml_auto-mnnvl_mnnvl-comprehensive-mix.yaml
