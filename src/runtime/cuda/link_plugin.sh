#!/bin/sh
# link_plugin.sh OUT.cmxs LIB.cmxa: links LIB (tinygrad.cuda) with every unit of cudajit, sexplib0, ctypes and
# integers into one Dynlink plugin (see dune). ctypes.foreign is left out: cudajit's generated stubs do not use it,
# and it would bring libffi and the threads library. ocamlfind's -dontlink would also drop its ancestors (ctypes),
# so the archives are listed here.
set -eu
pkgs="cudajit.cuda cudajit.nvrtc sexplib0"
archives=$(ocamlfind query -r -predicates native -a-format $pkgs | grep -v 'ctypes-foreign')
incs=$(ocamlfind query -r -i-format $pkgs)
exec ocamlfind ocamlopt -shared -linkall -o "$1" $incs $archives "$2"
