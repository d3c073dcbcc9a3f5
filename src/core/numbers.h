/*
 * The numbers users give the library and its tools (command-line options, DTR_* environment
 * variables), parsed strictly: the whole text and nothing else, digits only (no blank, no sign where
 * the value cannot be negative, no hexadecimal), no wrap-around and no rounding. On a refusal `why`
 * says what is wrong and what is expected ("a blank is not part of a number; expected a whole number
 * from 0 to 64"), for a message that also names the option or variable.
 */
#ifndef DTR_NUMBERS_H
#define DTR_NUMBERS_H

#include <stddef.h>
#include <stdint.h>

/* A whole number from lo to hi: digits, a leading '-' only where lo < 0. 0, or -1 with why. */
int dtrParseCount(const char* s, int64_t lo, int64_t hi, int64_t* out, char* why, size_t len);

/* A size from lo to hi: digits, then optionally K, M, G or T (powers of 1024), an optional 'i' and an
 * optional 'B' ("64", "64K", "64KiB", "4GB"; any case). 0, or -1 with why. */
int dtrParseSize(const char* s, uint64_t lo, uint64_t hi, uint64_t* out, char* why, size_t len);

/* A decimal number from lo to hi: digits with an optional fraction and exponent ("2", "0.5", "1e-3"),
 * finite. 0, or -1 with why. */
int dtrParseReal(const char* s, double lo, double hi, double* out, char* why, size_t len);

#endif
