/* The word ladder of the kernels that take any alignment: each picks, at launch, the widest word
 * that every access allows and instantiates itself for it. Host code only (no CUDA runtime), so the
 * host tests use the same choice. The launch returns what `launch` does. */
#ifndef DTR_WIDEST_WORD_H
#define DTR_WIDEST_WORD_H

#include <stdint.h>

#include <vector_types.h>

namespace dtr {

/* Calls launch with a value of the widest word (uint4 down to uint8_t) whose size divides align, the
 * OR of every address, pitch and width the kernel will touch: each access then stays aligned. */
template <typename Launch>
auto withWidestWord(uint64_t align, Launch launch) -> decltype(launch(uint8_t{})) {
  if (!(align & 15)) return launch(uint4{});
  if (!(align & 7)) return launch(uint64_t{});
  if (!(align & 3)) return launch(uint32_t{});
  if (!(align & 1)) return launch(uint16_t{});
  return launch(uint8_t{});
}

}  // namespace dtr

#endif
