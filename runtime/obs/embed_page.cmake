# embed_page.cmake — writes OUT, a C file that defines NAME (the bytes of
# IN) and NAME_size (their count): how report.html gets into libdag.
#   cmake -DIN=page.html -DOUT=page.c -DNAME=symbol -P embed_page.cmake
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR bytes "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT}
  "/* Generated from ${IN} by embed_page.cmake: do not edit. */\n"
  "#include <stddef.h>\n"
  "const unsigned char ${NAME}[] = {${body}};\n"
  "const size_t ${NAME}_size = ${bytes};\n")
