/*
 * oracle_json.c - builds the copy of codec/json.c and base/ (buf.c, hex.c, utf8.c) that
 * oracle.h declares: the same source, every external name prefixed with
 * oracle_. The builds compile this file without coverage instrumentation
 * (fuzz/CMakeLists.txt, fuzz/oss-fuzz/build.sh). A name added to json.c or
 * those and missing here is defined twice, so the fuzz targets fail to link.
 */
#define mcps_json_create_number_text oracle_mcps_json_create_number_text
#define mcps_json_default_limits     oracle_mcps_json_default_limits
#define mcps_json_delete             oracle_mcps_json_delete
#define mcps_json_equal              oracle_mcps_json_equal
#define mcps_json_number_is_integer  oracle_mcps_json_number_is_integer
#define mcps_json_number_text        oracle_mcps_json_number_text
#define mcps_json_parse              oracle_mcps_json_parse
#define mcps_json_parse_spotted      oracle_mcps_json_parse_spotted
#define mcps_json_parse_simple       oracle_mcps_json_parse_simple
#define mcps_json_print              oracle_mcps_json_print
#define mcps_json_scalar_text        oracle_mcps_json_scalar_text
#define mcps_json_utf8_valid         oracle_mcps_json_utf8_valid
#define mcps_buf_append              oracle_mcps_buf_append
#define mcps_buf_clear               oracle_mcps_buf_clear
#define mcps_buf_consume             oracle_mcps_buf_consume
#define mcps_buf_free                oracle_mcps_buf_free
#define mcps_buf_printf              oracle_mcps_buf_printf
#define mcps_buf_putc                oracle_mcps_buf_putc
#define mcps_buf_puts                oracle_mcps_buf_puts
#define mcps_buf_reserve             oracle_mcps_buf_reserve
#define mcps_buf_take                oracle_mcps_buf_take
#define mcps_buf_vprintf             oracle_mcps_buf_vprintf
#define mcps_hex_byte                oracle_mcps_hex_byte
#define mcps_hex_value               oracle_mcps_hex_value
#define mcps_percent_decode          oracle_mcps_percent_decode
#define mcps_utf8_count              oracle_mcps_utf8_count
#define mcps_utf8_decode             oracle_mcps_utf8_decode
#define mcps_utf8_encode             oracle_mcps_utf8_encode
#define mcps_utf8_valid              oracle_mcps_utf8_valid

#include "oracle.h"

#include "base/buf.c"
#include "base/hex.c"
#include "base/utf8.c"
#include "codec/json.c"
