/* skops SDK: clang -target bpf defines neither __x86_64__ nor __i386__, so
 * glibc's <gnu/stubs.h> asks for the 32-bit list of functions glibc does not
 * implement (only __stub_* macros, none of which a program for the BPF
 * target calls); Debian installs that list only with libc6-dev-i386. An empty
 * list lets programs include glibc headers (<string.h>, <netinet/in.h>) with
 * the host's multiarch directory added, as the kernel's selftests build. */
