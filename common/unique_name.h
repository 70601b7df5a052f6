// FILTERLAB_UNIQUE_NAME(prefix): a name no other use gives, for the file-scope
// statics that register a variant or a vector kind at start-up
// (filters/registry.h, filters/vectors/vector_check.h). __COUNTER__ differs at
// every use in a translation unit, so two registering files compiled as one
// (the sanitizer trees' unity builds) still get distinct names; __LINE__ would
// not.
#pragma once

#define FILTERLAB_UNIQUE_NAME_JOIN2(a, b) a##b
#define FILTERLAB_UNIQUE_NAME_JOIN(a, b) FILTERLAB_UNIQUE_NAME_JOIN2(a, b)
#define FILTERLAB_UNIQUE_NAME(prefix) FILTERLAB_UNIQUE_NAME_JOIN(prefix, __COUNTER__)
