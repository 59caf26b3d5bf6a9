/* SPDX-License-Identifier: MIT */
#define MOD 2
#include "unit.h"
