/* SPDX-License-Identifier: MIT */
#define MOD 9
#include "unit.h"
