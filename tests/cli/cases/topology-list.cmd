topology list
