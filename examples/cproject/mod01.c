/* SPDX-License-Identifier: MIT */
#define MOD 1
#include "unit.h"
