/* SPDX-License-Identifier: MIT */
#define MOD 3
#include "unit.h"
