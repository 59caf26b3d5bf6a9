/* SPDX-License-Identifier: MIT */
#define MOD 5
#include "unit.h"
