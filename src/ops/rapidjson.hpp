// RapidJSON, included from here only, so that every translation unit sees the same configuration.
#pragma once

// Strings of 16 bytes or more are scanned for what needs escaping 16 bytes at a time. SSE2 is in
// every x86-64 CPU; RapidJSON's SSE2 scan reads only aligned blocks inside the string.
#if defined(__SSE2__) && !defined(RAPIDJSON_SSE2)
#define RAPIDJSON_SSE2
#endif
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
