/* skops SDK: byte-order conversion for BPF C sources (seed style
 * "bpf_endian.h"). Constants fold at compile time; variables become one
 * BPF_END instruction. BPF has the compiler's byte order (bpfel/bpfeb). */
#ifndef SKOPS_SDK_BPF_ENDIAN_H
#define SKOPS_SDK_BPF_ENDIAN_H

#define ___bpf_const_swab16(x) ((__u16)((((__u16)(x)&0x00ffU) << 8) | (((__u16)(x)&0xff00U) >> 8)))
#define ___bpf_const_swab32(x)                                                                     \
	((__u32)((((__u32)(x)&0x000000ffUL) << 24) | (((__u32)(x)&0x0000ff00UL) << 8) |            \
		 (((__u32)(x)&0x00ff0000UL) >> 8) | (((__u32)(x)&0xff000000UL) >> 24)))
#define ___bpf_const_swab64(x)                                                                     \
	((__u64)(((__u64)___bpf_const_swab32((__u64)(x)&0xffffffffULL) << 32) |                    \
		 ___bpf_const_swab32((__u64)(x) >> 32)))

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ___bpf_to_be16(x)   (x)
#define ___bpf_to_be32(x)   (x)
#define ___bpf_to_be64(x)   (x)
#define ___bpf_to_be16_c(x) (x)
#define ___bpf_to_be32_c(x) (x)
#define ___bpf_to_be64_c(x) (x)
#else
#define ___bpf_to_be16(x)   __builtin_bswap16(x)
#define ___bpf_to_be32(x)   __builtin_bswap32(x)
#define ___bpf_to_be64(x)   __builtin_bswap64(x)
#define ___bpf_to_be16_c(x) ___bpf_const_swab16(x)
#define ___bpf_to_be32_c(x) ___bpf_const_swab32(x)
#define ___bpf_to_be64_c(x) ___bpf_const_swab64(x)
#endif

#define bpf_htons(x)	   (__builtin_constant_p(x) ? ___bpf_to_be16_c(x) : ___bpf_to_be16(x))
#define bpf_ntohs(x)	   bpf_htons(x)
#define bpf_htonl(x)	   (__builtin_constant_p(x) ? ___bpf_to_be32_c(x) : ___bpf_to_be32(x))
#define bpf_ntohl(x)	   bpf_htonl(x)
#define bpf_cpu_to_be64(x) (__builtin_constant_p(x) ? ___bpf_to_be64_c(x) : ___bpf_to_be64(x))
#define bpf_be64_to_cpu(x) bpf_cpu_to_be64(x)

#endif
