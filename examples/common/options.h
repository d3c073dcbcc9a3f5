/*
 * The examples' command lines, read alike: the walk over the arguments with its messages (an unknown
 * option, a missing value, a value not taken), the values of the options they share (--grid, --backend,
 * --type), and the numbers and shapes of the others. The value parsers return 0 (the value stored) or -1
 * (the value is not one the option takes: the example stops with its message), or, where noted, NULL or
 * what the option expected, for that message.
 */
#ifndef EX_OPTIONS_H
#define EX_OPTIONS_H

#include <stddef.h>

#include <disttranspose.h>

/* What an example does with one of its options (`value` NULL for a flag): NULL, or what the option
 * expected, for the message "NAME 'VALUE': expected WHY". */
typedef const char* (*ExTakeOption)(void* options, const char* name, const char* value);

/* Reads argv in order, handing each option of `flags` (no value) or `valued` (the argument after it,
 * whatever it looks like) to take(); both lists end with NULL. 0: every option taken; 1: --help or -h;
 * -1: an option of neither list, one without its value, or a value take() refused, msg saying which.
 * The first of these in argv decides. */
int exReadOptions(int argc, char** argv, const char* const* flags, const char* const* valued, ExTakeOption take, void* options,
                  char* msg, size_t len);

/* A whole number from lo to hi. */
int exParseWhole(const char* v, long long lo, long long hi, long long* out);

/* A finite real number. */
int exParseReal(const char* v, double* out);

/* "AxBxC": `count` whole numbers from 1 to hi, x or X between them; "A" alone stands for all three
 * where count is 3. On -1, out may hold the numbers read before the bad one. */
int exParseDims(const char* v, int count, long long hi, long long* out);

/* --grid PRxPC or auto (*autogrid set, *pr and *pc 0: dtrGridAutotune chooses). NULL, or what it expects. */
const char* exParseGrid(const char* v, int* autogrid, int* pr, int* pc);

/* --backend auto, cpu, nccl or p2p, and whether it takes GPUs (*gpu): auto does where every rank has one
 * (`everyGpu`). NULL, or what it expects. */
const char* exParseBackend(const char* v, int everyGpu, dtrBackend_t* backend, int* gpu);

/* --type fp64 or fp32 (*dbl 1 or 0), or c128 and c64, the names of their transforms' types. */
int exParsePrecision(const char* v, int* dbl);

#endif
