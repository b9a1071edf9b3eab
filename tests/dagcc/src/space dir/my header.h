/* A header with a space in its name. */
#define HEADER_VALUE 7
