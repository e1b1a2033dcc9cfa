# An upper-case extension picks the format as a lower-case one does.
render gb200-nvl72 --level rack -o $OUT/RACK.SVG && head -c 5 $OUT/RACK.SVG && echo
