/* SPDX-License-Identifier: MIT */
#define MOD 7
#include "unit.h"
