topology validate inputs/isolated.yaml
