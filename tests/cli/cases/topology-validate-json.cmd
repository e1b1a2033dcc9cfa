topology validate inputs/isolated.yaml --format json
