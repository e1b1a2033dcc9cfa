# SVG laid out in-process: an XML document whose texts are the racks, leaves
# and spines of the collapsed graph and the legend (coordinates vary with the
# Graphviz version, texts do not).
render gb200-nvl72:racks=2 --level rack -o $OUT/topology.svg && python3 -c "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); t = [x.text for x in r.iter('{http://www.w3.org/2000/svg}text') if x.text]; print(r.tag); print(*sorted(t), sep='\n')" $OUT/topology.svg
