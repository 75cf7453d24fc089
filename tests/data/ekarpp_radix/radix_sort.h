#ifndef RADIX_SORT_H
#define RADIX_SORT_H

typedef unsigned int u32;
typedef unsigned long long u64;

int radix_sort(int n, u32* input);

#endif
