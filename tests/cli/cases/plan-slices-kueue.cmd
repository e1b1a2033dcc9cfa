# The kueue policy picks the SU for the slices as Kueue's BestFit does (the
# SU with the fewest free slices that holds them all), each slice in a rack.
plan gb200-nvl72:racks=16 inputs/jobs-slices.yaml --policy kueue --format yaml | grep -E '^  - name|hosts|reason'
