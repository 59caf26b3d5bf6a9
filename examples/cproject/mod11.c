/* SPDX-License-Identifier: MIT */
#define MOD 11
#include "unit.h"
