topology list --format json
