# -o naming a directory says so, whether or not the name ends in / or has an extension.
--version >/dev/null; cd $OUT && mkdir x.svg && "$bin" render gb200-nvl72 --level rack -o x.svg/; "$bin" render gb200-nvl72 --level rack -o x.svg
