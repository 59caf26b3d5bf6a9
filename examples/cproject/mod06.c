/* SPDX-License-Identifier: MIT */
#define MOD 6
#include "unit.h"
