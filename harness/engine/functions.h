/*
 * functions.h - functions a suite calls with `let NAME = FUNC(${A}, ...)`:
 *
 *   traversal_probes(${uri})            [{"uri","trick"}] aimed outside the URI's folder
 *   expand_template(${template})        the template with a probe value in every variable
 *   fill_arguments(${prompt})           {"arg":"mcpspec"} for the prompt's required arguments
 *   invalid_arguments(${schema}, ${ok}) a copy of ok that breaks exactly one schema keyword
 *   template_variables(${template})     the names of the template's variables
 *   generate_value(${schema})           a value valid against the schema
 *   path_probe_arguments(${args}, ${key}) copies of args whose path argument key climbs out
 *                                        of its folder: [{"arguments","path","trick"}]
 *   protected_resource_metadata(${headers}) the URL of the protected resource metadata: the
 *                                        resource_metadata of a 401's WWW-Authenticate, else
 *                                        /.well-known/oauth-protected-resource (RFC 9728)
 *   mcp_param_probes(${schema}, ${args}) for a call of a tool whose inputSchema marks properties
 *                                        with x-mcp-header (2026-07-28): the Mcp-Param headers a
 *                                        client sends ("headers"), and the probes a server must
 *                                        refuse ("refused", "invalid") or accept ("absent", and
 *                                        "integer": 42 sent as 42.0)
 *
 * Robustness probes: each returns a string holding JSON text, for `--> raw ...${X}...` to
 * splice in (n is an integer variable, 1 to 4 Mi, e.g. `let n = 100000`):
 *   json_nested_arrays(${n})            [[[...]]], n levels deep
 *   json_nested_objects(${n})           {"a":{"a":...{}}}, n levels deep
 *   json_long_string(${n})              "mmm...", a string of n characters
 *   json_long_number(${n})              988...8, an integer of n digits
 *   json_many_members(${n})             {"m0":0,...}, an object of n members
 */
#ifndef MCPS_ENGINE_FUNCTIONS_H
#define MCPS_ENGINE_FUNCTIONS_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* True when name is a function taking nargs arguments. */
bool mcps_function_known(const char *name, size_t nargs);

/* A new value, or NULL with why filled (the variable then stays unset). */
cJSON *mcps_function_call(const char *name, const cJSON *const *args, size_t nargs, char *why,
                          size_t n);

#endif
