"""Where an installed yolort put its library and tools. cmake --install rewrites this file with
its prefix; a source tree or a pip install leaves them empty (then $YOLORT_LIB / $YOLORT_BIN, the
system's library path and PATH are searched)."""
LIBDIR = ""
BINDIR = ""
