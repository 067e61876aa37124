// Intentionally empty: CFuzzer only exposes LLVMFuzzerRunDriver's declaration to Swift.
#include "CFuzzer.h"
