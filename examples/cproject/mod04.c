/* SPDX-License-Identifier: MIT */
#define MOD 4
#include "unit.h"
