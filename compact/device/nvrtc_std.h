/*
 * The few standard definitions the kernel headers use, for NVRTC, which has
 * no standard library headers of its own: embedded in the library under the
 * names <cstdint>, <stdint.h> and <stddef.h> (compact/cuda_sources.cmake) and
 * used only for run-time compiled formulas. nvcc builds use the real ones.
 */
#ifndef GP_NVRTC_STD_H
#define GP_NVRTC_STD_H

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
typedef decltype(sizeof(0)) size_t;
typedef decltype((char *)0 - (char *)0) ptrdiff_t;

#define INT32_MIN (-2147483647 - 1)
#define INT32_MAX 2147483647
#define UINT32_MAX 0xffffffffu
#define INT64_MIN (-9223372036854775807ll - 1)
#define INT64_MAX 9223372036854775807ll
#define UINT64_MAX 0xffffffffffffffffull

#endif
