/* In an include folder: libclang must see it as the compiler does. */
#ifndef TERMS
#error "TERMS is not defined"
#endif
