/* Copied to "space dir/my header.h" by the tests. */
#define HEADER_VALUE 7
