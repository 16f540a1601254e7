/*
 * test_jsonschema.c - the JSON Schema validator, checker, regex engine and
 * generator: every keyword in both dialects, exact numbers, $ref pointers and
 * cycles, the work budget against hostile schemas, and generated values that
 * validate for realistic MCP tool schemas.
 *
 * Schemas and instances are written with single quotes for readability; q()
 * turns them into JSON before the strict parser reads them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/buf.h"
#include "codec/json.h"
#include "engine/jsonschema_gen.h"
#include "schema/jsonschema.h"

#define Y  MCPS_SCHEMA_VALID
#define N  MCPS_SCHEMA_INVALID
#define SE MCPS_SCHEMA_SCHEMA_ERROR
#define UN MCPS_SCHEMA_UNSUPPORTED
#define TC MCPS_SCHEMA_TOO_COMPLEX
#define D7 "'$schema':'http://json-schema.org/draft-07/schema#',"

/* Parse single-quoted JSON text: every ' becomes ". */
static cJSON *q(const char *text)
{
    char *s = strdup(text);
    for (char *p = s; *p; p++)
        if (*p == '\'')
            *p = '"';
    cJSON *v = mcps_json_parse_simple(s, strlen(s));
    free(s);
    return v;
}

/* CPU time; limits below are loose so sanitizer and valgrind runs pass, but an
 * exponential algorithm would still blow through them by orders of magnitude. */
static double ms_since(clock_t start)
{
    return (double)(clock() - start) * 1000.0 / CLOCKS_PER_SEC;
}

static void dump(const char *what, const mcps_schema_result *r)
{
    fprintf(stderr, "  %s: %s, %zu errors\n", what, mcps_schema_verdict_name(r->verdict),
            r->nerrors);
    for (size_t i = 0; i < r->nkept; i++)
        fprintf(stderr, "    [%s] at '%s' (schema '%s'): %s\n",
                mcps_schema_verdict_name(r->errors[i].kind), r->errors[i].instance_path,
                r->errors[i].schema_path, r->errors[i].message);
}

/* ---- the keyword table ---------------------------------------------------------- */

typedef struct vcase {
    const char *schema;
    const char *instance;
    mcps_schema_verdict want;
} vcase;

static const vcase CASES[] = {
    /* type, and the integer rule: no fractional part, whatever the spelling */
    {"{'type':'integer'}", "1", Y},
    {"{'type':'integer'}", "1.0", Y},
    {"{'type':'integer'}", "-0", Y},
    {"{'type':'integer'}", "1e2", Y},
    {"{'type':'integer'}", "1.5e1", Y},
    {"{'type':'integer'}", "0.1e1", Y},
    {"{'type':'integer'}", "12345678901234567890123", Y},
    {"{'type':'integer'}", "1.5", N},
    {"{'type':'integer'}", "1e-1", N},
    {"{'type':'integer'}", "9007199254740993.5", N},
    {"{'type':'integer'}", "'1'", N},
    {"{'type':'number'}", "1", Y},
    {"{'type':'number'}", "1.5", Y},
    {"{'type':'number'}", "'1'", N},
    {"{'type':'string'}", "'a'", Y},
    {"{'type':'string'}", "1", N},
    {"{'type':'null'}", "null", Y},
    {"{'type':'null'}", "0", N},
    {"{'type':'boolean'}", "false", Y},
    {"{'type':'boolean'}", "0", N},
    {"{'type':'object'}", "{}", Y},
    {"{'type':'object'}", "[]", N},
    {"{'type':'array'}", "[]", Y},
    {"{'type':'array'}", "{}", N},
    {"{'type':['string','null']}", "null", Y},
    {"{'type':['string','null']}", "1", N},
    {"{'type':['integer','string']}", "2.0", Y},
    {"{'type':'strnig'}", "'x'", SE},
    {"{'type':[]}", "1", SE},
    {"{'type':5}", "1", SE},
    {"{" D7 "'type':'integer'}", "1.0", Y},

    /* enum and const compare numbers by value, objects without order */
    {"{'enum':[1,'a',null,{'b':[1]}]}", "1.0", Y},
    {"{'enum':[1,'a',null,{'b':[1]}]}", "'a'", Y},
    {"{'enum':[1,'a',null,{'b':[1]}]}", "null", Y},
    {"{'enum':[1,'a',null,{'b':[1]}]}", "{'b':[1.0]}", Y},
    {"{'enum':[1,'a',null,{'b':[1]}]}", "{'b':[2]}", N},
    {"{'enum':[1,'a',null,{'b':[1]}]}", "true", N},
    {"{'enum':[false]}", "0", N},
    {"{'enum':'x'}", "1", SE},
    {"{'const':1}", "1.0", Y},
    {"{'const':1}", "10e-1", Y},
    {"{'const':1}", "0.1e1", Y},
    {"{'const':1}", "2", N},
    {"{'const':1}", "'1'", N},
    {"{'const':1}", "true", N},
    {"{'const':{'a':1,'b':[1,2]}}", "{'b':[1,2],'a':1.0}", Y},
    {"{'const':{'a':1,'b':[1,2]}}", "{'a':1}", N},
    {"{'const':{'a':1,'b':[1,2]}}", "{'a':1,'b':[2,1]}", N},
    {"{'const':null}", "null", Y},
    {"{'const':null}", "false", N},
    {"{'const':9007199254740993}", "9007199254740992", N},
    {"{'const':9007199254740993}", "9007199254740993", Y},
    {"{" D7 "'const':'x'}", "'x'", Y},

    /* numeric bounds: exact, both dialects, draft-04's boolean form honoured */
    {"{'minimum':1}", "1", Y},
    {"{'minimum':1}", "0.999", N},
    {"{'minimum':1}", "'a'", Y},
    {"{'maximum':9007199254740992}", "9007199254740993", N},
    {"{'maximum':9007199254740992}", "9007199254740992", Y},
    {"{'maximum':1e400}", "1e399", Y},
    {"{'exclusiveMinimum':1}", "1", N},
    {"{'exclusiveMinimum':1}", "1.0001", Y},
    {"{'exclusiveMaximum':5}", "5.0", N},
    {"{'exclusiveMaximum':5}", "4.9", Y},
    {"{" D7 "'exclusiveMinimum':1}", "1", N},
    {"{" D7 "'exclusiveMaximum':5}", "4", Y},
    {"{'minimum':5,'exclusiveMinimum':true}", "5", N},
    {"{'minimum':5,'exclusiveMinimum':true}", "6", Y},
    {"{'maximum':'5'}", "1", SE},
    {"{'multipleOf':0.01}", "0.07", Y},
    {"{'multipleOf':0.01}", "19.99", Y},
    {"{'multipleOf':0.01}", "0.075", N},
    {"{'multipleOf':3}", "9", Y},
    {"{'multipleOf':3}", "10", N},
    {"{'multipleOf':1.5}", "4.5", Y},
    {"{'multipleOf':1.5}", "4", N},
    {"{'multipleOf':1e-8}", "0.00000003", Y},
    {"{'multipleOf':0.1}", "1e308", Y},
    {"{'multipleOf':7}", "1e30", N},
    {"{'multipleOf':2}", "1e30", Y},
    {"{'multipleOf':0}", "1", SE},
    {"{'multipleOf':-1}", "1", SE},

    /* string length counts code points */
    {"{'minLength':2}", "'\xc3\xa9'", N},
    {"{'minLength':2}", "'ab'", Y},
    {"{'minLength':2}", "'\xe6\x97\xa5\xe6\x9c\xac'", Y},
    {"{'maxLength':2}", "'\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e'", N},
    {"{'maxLength':2}", "'\xf0\x9f\x98\x80\xf0\x9f\x98\x80'", Y},
    {"{'maxLength':1}", "'\\u0000'", Y},
    {"{'minLength':1.0}", "''", N},
    {"{'minLength':-1}", "'a'", SE},
    {"{'minLength':'2'}", "'a'", SE},
    {"{'minLength':1.5}", "'a'", SE},
    {"{'maxLength':3}", "12345", Y},

    /* pattern: ECMA-262, unanchored, by code point */
    {"{'pattern':'^[a-z]+$'}", "'abc'", Y},
    {"{'pattern':'^[a-z]+$'}", "'abC'", N},
    {"{'pattern':'^[a-z]+$'}", "5", Y},
    {"{'pattern':'b'}", "'abc'", Y},
    {"{'pattern':'^\\\\d{3}-\\\\d{4}$'}", "'555-1234'", Y},
    {"{'pattern':'^\\\\d{3}-\\\\d{4}$'}", "'555-12345'", N},
    {"{'pattern':'^.$'}", "'\xe6\x97\xa5'", Y},
    {"{'pattern':'(?=a)'}", "'a'", UN},
    {"{'pattern':'(a)\\\\1'}", "'aa'", UN},
    {"{'pattern':'('}", "'x'", SE},
    {"{'pattern':5}", "'x'", SE},
    {"{'format':'email'}", "'not an email'", Y}, /* format is an annotation by default */

    /* arrays, 2020-12 */
    {"{'prefixItems':[{'type':'integer'},{'type':'string'}],'items':false}", "[1,'a']", Y},
    {"{'prefixItems':[{'type':'integer'},{'type':'string'}],'items':false}", "[1]", Y},
    {"{'prefixItems':[{'type':'integer'},{'type':'string'}],'items':false}", "[1,'a',2]", N},
    {"{'prefixItems':[{'type':'integer'},{'type':'string'}],'items':false}", "['a']", N},
    {"{'items':{'type':'integer'}}", "[1,2]", Y},
    {"{'items':{'type':'integer'}}", "[1,'x']", N},
    {"{'items':{'type':'integer'}}", "{'a':'x'}", Y},
    {"{'items':[{'type':'integer'}]}", "[1]", SE},
    {"{'prefixItems':[{}],'additionalItems':false}", "[1,2]", Y},
    /* arrays, draft-07 */
    {"{" D7 "'items':[{'type':'integer'},{'type':'string'}],'additionalItems':false}", "[1,'a']",
     Y},
    {"{" D7 "'items':[{'type':'integer'},{'type':'string'}],'additionalItems':false}", "[1,'a',3]",
     N},
    {"{" D7 "'items':[{'type':'integer'},{'type':'string'}],'additionalItems':false}", "[1]", Y},
    {"{" D7 "'items':[{'type':'integer'},{'type':'string'}],'additionalItems':false}", "['a']", N},
    {"{" D7 "'items':[{'type':'integer'}],'additionalItems':{'type':'string'}}", "[1,'a','b']", Y},
    {"{" D7 "'items':[{'type':'integer'}],'additionalItems':{'type':'string'}}", "[1,2]", N},
    {"{" D7 "'items':{'type':'integer'}}", "[1,2]", Y},
    {"{" D7 "'items':{'type':'integer'}}", "[1,'2']", N},
    {"{" D7 "'items':{'type':'integer'},'additionalItems':false}", "[1,2]", Y},
    {"{" D7 "'prefixItems':[{'type':'string'}]}", "[1]", Y},
    {"{'minItems':2}", "[1]", N},
    {"{'minItems':2}", "[1,2]", Y},
    {"{'maxItems':1}", "[1,2]", N},
    {"{'maxItems':1}", "'ab'", Y},
    {"{'uniqueItems':true}", "[1,1.0]", N},
    {"{'uniqueItems':true}", "[1,'1']", Y},
    {"{'uniqueItems':true}", "[{'a':1,'b':2},{'b':2,'a':1}]", N},
    {"{'uniqueItems':true}", "[[1],[true]]", Y},
    {"{'uniqueItems':true}", "[0,false,null,'',[],{}]", Y},
    {"{'uniqueItems':false}", "[1,1]", Y},
    {"{'uniqueItems':1}", "[1]", SE},
    {"{'contains':{'type':'string'}}", "[1,'a']", Y},
    {"{'contains':{'type':'string'}}", "[1,2]", N},
    {"{'contains':{'type':'string'}}", "[]", N},
    {"{'contains':{'type':'string'},'minContains':2}", "[1,'a','b']", Y},
    {"{'contains':{'type':'string'},'minContains':2}", "[1,'a']", N},
    {"{'contains':{'type':'string'},'maxContains':1}", "['a','b']", N},
    {"{'contains':{'type':'string'},'maxContains':1}", "['a',2]", Y},
    {"{'contains':{'type':'string'},'minContains':0}", "[]", Y},
    {"{" D7 "'contains':{'type':'string'},'minContains':2}", "[1,'a']", Y},
    {"{" D7 "'contains':{'type':'string'}}", "[1]", N},
    {"{'contains':{'pattern':'(?=a)'}}", "['a']", UN},
    {"{'contains':{'pattern':'(?=a)'}}", "[1]", Y},

    /* objects */
    {"{'properties':{'a':{'type':'integer'}}}", "{'a':1}", Y},
    {"{'properties':{'a':{'type':'integer'}}}", "{'a':'x'}", N},
    {"{'properties':{'a':{'type':'integer'}}}", "{'b':'x'}", Y},
    {"{'properties':{'a':{'type':'integer'}}}", "'a'", Y},
    {"{'properties':{'a':false}}", "{'a':1}", N},
    {"{'properties':{'a':false}}", "{}", Y},
    {"{'properties':5}", "{}", SE},
    {"{'properties':{'a':5}}", "{'a':1}", SE},
    {"{'required':['a','b']}", "{'a':1,'b':2}", Y},
    {"{'required':['a','b']}", "{'a':1}", N},
    {"{'required':['a','b']}", "'x'", Y},
    {"{'required':'a'}", "{}", SE},
    {"{'required':[1]}", "{}", SE},
    {"{'properties':{'a':{}},'additionalProperties':false}", "{'a':1}", Y},
    {"{'properties':{'a':{}},'additionalProperties':false}", "{'a':1,'b':2}", N},
    {"{'additionalProperties':{'type':'integer'}}", "{'x':1}", Y},
    {"{'additionalProperties':{'type':'integer'}}", "{'x':'a'}", N},
    {"{'patternProperties':{'^x_':{'type':'integer'}},'additionalProperties':false}", "{'x_a':1}",
     Y},
    {"{'patternProperties':{'^x_':{'type':'integer'}},'additionalProperties':false}", "{'x_a':'s'}",
     N},
    {"{'patternProperties':{'^x_':{'type':'integer'}},'additionalProperties':false}", "{'y':1}", N},
    {"{'patternProperties':{'(?=x)':{'type':'integer'}}}", "{'x':'s'}", UN},
    {"{'patternProperties':{'(?=x)':{'type':'integer'}}}", "{'x':1}", Y},
    {"{'patternProperties':{'(?=x)':{}},'additionalProperties':false}", "{'x':1}", UN},
    {"{'patternProperties':{'(?=x)':{}},'additionalProperties':false}", "{}", Y},
    {"{'patternProperties':{'[':{}}}", "{'a':1}", SE},
    {"{'propertyNames':{'maxLength':3}}", "{'abc':1}", Y},
    {"{'propertyNames':{'maxLength':3}}", "{'abcd':1}", N},
    {"{'propertyNames':{'pattern':'^[a-z]+$'}}", "{'ok':1,'Bad':2}", N},
    {"{'propertyNames':false}", "{}", Y},
    {"{'minProperties':1}", "{}", N},
    {"{'maxProperties':1}", "{'a':1,'b':2}", N},
    {"{'maxProperties':1}", "{'a':1}", Y},
    {"{'dependentRequired':{'a':['b']}}", "{'a':1}", N},
    {"{'dependentRequired':{'a':['b']}}", "{'a':1,'b':1}", Y},
    {"{'dependentRequired':{'a':['b']}}", "{'b':1}", Y},
    {"{'dependentRequired':{'a':'b'}}", "{}", SE},
    {"{'dependentSchemas':{'a':{'required':['c']}}}", "{'a':1}", N},
    {"{'dependentSchemas':{'a':{'required':['c']}}}", "{'a':1,'c':1}", Y},
    {"{" D7 "'dependencies':{'a':['b'],'c':{'required':['d']}}}", "{'a':1}", N},
    {"{" D7 "'dependencies':{'a':['b'],'c':{'required':['d']}}}", "{'c':1}", N},
    {"{" D7 "'dependencies':{'a':['b'],'c':{'required':['d']}}}", "{'c':1,'d':1}", Y},
    {"{" D7 "'dependentRequired':{'a':['b']}}", "{'a':1}", Y},
    {"{'unevaluatedProperties':false}", "{}", Y},
    {"{'unevaluatedProperties':false}", "{'a':1}", N},
    {"{'properties':{'a':{}},'patternProperties':{'^x':{}},'unevaluatedProperties':false}",
     "{'a':1,'xy':2}", Y},
    {"{'properties':{'a':{}},'patternProperties':{'^x':{}},'unevaluatedProperties':false}",
     "{'a':1,'b':2}", N},
    {"{'properties':{'a':{}},'unevaluatedProperties':{'type':'string'}}", "{'a':1,'b':'s'}", Y},
    {"{'additionalProperties':true,'unevaluatedProperties':false}", "{'a':1}", Y},
    {"{'properties':{'a':{}},'allOf':[{'properties':{'b':{}}}],'unevaluatedProperties':false}",
     "{'a':1}", Y},
    {"{'properties':{'a':{}},'allOf':[{'properties':{'b':{}}}],'unevaluatedProperties':false}",
     "{'a':1,'b':2}", Y},
    {"{'properties':{'a':{}},'allOf':[{'properties':{'b':{}}}],'unevaluatedProperties':false}",
     "{'a':1,'c':2}", N},
    {"{'anyOf':[{'properties':{'a':{}}},{'properties':{'b':{}}}],'unevaluatedProperties':false}",
     "{'a':1,'b':2}", Y},
    {"{'not':{'not':{'properties':{'a':{}}}},'unevaluatedProperties':false}", "{'a':1}", N},
    {"{'prefixItems':[{'type':'integer'}],'unevaluatedItems':false}", "[1]", Y},
    {"{'prefixItems':[{'type':'integer'}],'unevaluatedItems':false}", "[1,2]", N},
    {"{'unevaluatedItems':{'type':'string'}}", "['a','b']", Y},
    {"{'items':{},'unevaluatedItems':false}", "[1,2]", Y},
    {"{'allOf':[{'prefixItems':[{}]}],'unevaluatedItems':false}", "[1]", Y},
    {"{'allOf':[{'prefixItems':[{}]}],'unevaluatedItems':false}", "[1,2]", N},
    {"{'contains':{'type':'string'},'unevaluatedItems':{'type':'integer'}}", "['a',1]", Y},
    {"{'contains':{'type':'string'},'unevaluatedItems':{'type':'integer'}}", "['a',true]", N},
    {"{" D7 "'unevaluatedItems':false}", "[1]", Y},

    /* combinators, with three-valued logic for what we cannot check */
    {"{'allOf':[{'type':'integer'},{'minimum':2}]}", "3", Y},
    {"{'allOf':[{'type':'integer'},{'minimum':2}]}", "1", N},
    {"{'allOf':[{'type':'integer'},{'minimum':2}]}", "'x'", N},
    {"{'allOf':[]}", "1", SE},
    {"{'anyOf':[{'type':'string'},{'minimum':5}]}", "'a'", Y},
    {"{'anyOf':[{'type':'string'},{'minimum':5}]}", "6", Y},
    {"{'anyOf':[{'type':'string'},{'minimum':5}]}", "1", N},
    {"{'oneOf':[{'type':'integer'},{'minimum':2}]}", "1", Y},
    {"{'oneOf':[{'type':'integer'},{'minimum':2}]}", "2.5", Y},
    {"{'oneOf':[{'type':'integer'},{'minimum':2}]}", "3", N},
    {"{'oneOf':[{'type':'integer'},{'minimum':2}]}", "1.5", N},
    {"{'not':{'type':'string'}}", "1", Y},
    {"{'not':{'type':'string'}}", "'a'", N},
    {"{'not':{}}", "1", N},
    {"{'if':{'properties':{'k':{'const':'a'}}},'then':{'required':['x']},'else':{'required':['y']}"
     "}",
     "{'k':'a','x':1}", Y},
    {"{'if':{'properties':{'k':{'const':'a'}}},'then':{'required':['x']},'else':{'required':['y']}"
     "}",
     "{'k':'a'}", N},
    {"{'if':{'properties':{'k':{'const':'a'}}},'then':{'required':['x']},'else':{'required':['y']}"
     "}",
     "{'k':'b','y':1}", Y},
    {"{'if':{'properties':{'k':{'const':'a'}}},'then':{'required':['x']},'else':{'required':['y']}"
     "}",
     "{'k':'b'}", N},
    {"{" D7 "'if':{'minimum':10},'then':{'multipleOf':10}}", "15", N},
    {"{" D7 "'if':{'minimum':10},'then':{'multipleOf':10}}", "5", Y},
    {"{'then':false,'else':false}", "1", Y},
    {"{'anyOf':[{'pattern':'(?=a)'},{'type':'integer'}]}", "1", Y},
    {"{'anyOf':[{'pattern':'(?=a)'},{'type':'integer'}]}", "'x'", UN},
    {"{'allOf':[{'pattern':'(?=a)'},{'type':'integer'}]}", "'x'", N},
    {"{'oneOf':[{'pattern':'(?=a)'},{'type':'string'}]}", "'x'", UN},
    {"{'oneOf':[{'pattern':'(?=a)'},{'type':'string'}]}", "1", Y},
    {"{'not':{'pattern':'(?=a)'}}", "'x'", UN},
    {"{'if':{'pattern':'(?=a)'},'then':{'type':'string'},'else':{'type':'string'}}", "'x'", Y},
    {"{'if':{'pattern':'(?=a)'},'then':{'maxLength':0},'else':{'type':'string'}}", "'x'", UN},

    /* boolean schemas */
    {"true", "1", Y},
    {"false", "1", N},
    {"{}", "{'anything':[1,2]}", Y},
    {"5", "1", SE},

    /* $ref: pointers with escapes, percent-encoding, arrays, the root */
    {"{'$defs':{'pos':{'type':'integer','minimum':1}},'$ref':'#/$defs/pos'}", "1", Y},
    {"{'$defs':{'pos':{'type':'integer','minimum':1}},'$ref':'#/$defs/pos'}", "0", N},
    {"{'$defs':{'i':{'type':'integer'}},'$ref':'#/$defs/i','minimum':5}", "3", N},
    {"{" D7 "'definitions':{'i':{'type':'integer'}},'$ref':'#/definitions/i','minimum':5}", "3", Y},
    {"{" D7 "'definitions':{'i':{'type':'integer'}},'$ref':'#/definitions/i','minimum':5}", "'x'",
     N},
    {"{'$defs':{'a/b':{'type':'integer'}},'$ref':'#/$defs/a~1b'}", "1", Y},
    {"{'$defs':{'a/b':{'type':'integer'}},'$ref':'#/$defs/a~1b'}", "'x'", N},
    {"{'$defs':{'c~d':{'type':'string'}},'$ref':'#/$defs/c~0d'}", "1", N},
    {"{'$defs':{'c~d':{'type':'string'}},'$ref':'#/$defs/c~0d'}", "'s'", Y},
    {"{'$defs':{'e f':{'type':'null'}},'$ref':'#/$defs/e%20f'}", "null", Y},
    {"{'$defs':{'e f':{'type':'null'}},'$ref':'#/$defs/e%20f'}", "1", N},
    {"{'$defs':{'%':{'const':1}},'$ref':'#/$defs/%25'}", "1", Y},
    {"{'$defs':{'%':{'const':1}},'$ref':'#/$defs/%25'}", "2", N},
    {"{'$defs':{'~1':{'const':1}},'$ref':'#/$defs/~01'}", "1", Y},
    {"{'prefixItems':[{'type':'string'}],'items':{'$ref':'#/prefixItems/0'}}", "['a','b']", Y},
    {"{'prefixItems':[{'type':'string'}],'items':{'$ref':'#/prefixItems/0'}}", "['a',1]", N},
    {"{'type':'object','properties':{'child':{'$ref':'#'}}}", "{'child':{'child':{}}}", Y},
    {"{'type':'object','properties':{'child':{'$ref':'#'}}}", "{'child':{'child':1}}", N},
    {"{'$id':'https://example.com/root.json','$defs':{'i':{'type':'integer'}},"
     "'$ref':'https://example.com/root.json#/$defs/i'}",
     "1", Y},
    {"{'$id':'https://example.com/root.json','$defs':{'i':{'type':'integer'}},"
     "'$ref':'https://example.com/root.json#/$defs/i'}",
     "'x'", N},
    {"{'$defs':{'node':{'type':'object','properties':{'kids':{'type':'array',"
     "'items':{'$ref':'#/$defs/node'}}}}},'$ref':'#/$defs/node'}",
     "{'kids':[{'kids':[]},{}]}", Y},
    {"{'$defs':{'node':{'type':'object','properties':{'kids':{'type':'array',"
     "'items':{'$ref':'#/$defs/node'}}}}},'$ref':'#/$defs/node'}",
     "{'kids':[{'kids':[1]}]}", N},
    {"{'$ref':'#/$defs/missing'}", "1", SE},
    {"{'$defs':{'a':{}},'$ref':'#/$defs/a~2'}", "1", SE},
    {"{'$defs':{'a':{}},'$ref':'#/$defs/a%2'}", "1", SE},
    {"{'$ref':'#/items/5'}", "1", SE},
    {"{'$ref':5}", "1", SE},
    {"{'$ref':'https://example.com/s.json'}", "1", UN},
    {"{'$ref':'other.json#/x'}", "1", UN},
    {"{'$ref':'#anchor'}", "1", SE},
    {"{'$defs':{'a':{'$anchor':'anchor','type':'string'}},'$ref':'#anchor'}", "1", N},
    {"{'$id':'https://x.example/r','$defs':{'a':{'$id':'a.json','type':'string'}},"
     "'$ref':'a.json'}",
     "'s'", Y},
    {"{'$dynamicRef':'#meta'}", "1", SE},
    {"{'$defs':{'m':{'$dynamicAnchor':'meta','type':'string'}},'$dynamicRef':'#meta'}", "1", N},
    {"{" D7 "'$dynamicRef':'#meta'}", "1", Y},
    /* $ref cycles that never consume input */
    {"{'$ref':'#'}", "1", SE},
    {"{'$defs':{'a':{'$ref':'#/$defs/b'},'b':{'$ref':'#/$defs/a'}},'$ref':'#/$defs/a'}", "1", SE},
    {"{'$defs':{'a':{'anyOf':[{'type':'string'},{'$ref':'#/$defs/a'}]}},'$ref':'#/$defs/a'}", "'x'",
     Y},
    {"{'$defs':{'a':{'anyOf':[{'type':'string'},{'$ref':'#/$defs/a'}]}},'$ref':'#/$defs/a'}", "1",
     SE},
    {"{" D7 "'$ref':'#'}", "1", SE},

    /* dialects: unknown $schema is validated as 2020-12 */
    {"{'$schema':'https://example.invalid/unknown','type':'integer'}", "1", Y},
    {"{'$schema':'https://example.invalid/unknown','prefixItems':[{'type':'integer'}]}", "['x']",
     N},
    {"{'$schema':'https://json-schema.org/draft/2020-12/"
     "schema','prefixItems':[{'type':'integer'}]}",
     "['x']", N},
};

static void test_keyword_table(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        cJSON *schema = q(CASES[i].schema), *inst = q(CASES[i].instance);
        if (!schema || !inst) {
            fprintf(stderr, "case %zu does not parse: %s / %s\n", i, CASES[i].schema,
                    CASES[i].instance);
            failures++;
        } else {
            mcps_schema_result r;
            mcps_schema_verdict v = mcps_schema_validate(schema, inst, NULL, &r);
            if (v != CASES[i].want) {
                fprintf(stderr, "case %zu: %s against %s: want %s\n", i, CASES[i].instance,
                        CASES[i].schema, mcps_schema_verdict_name(CASES[i].want));
                dump("got", &r);
                failures++;
            }
            if (v == Y && r.nerrors != 0) {
                fprintf(stderr, "case %zu: valid but %zu errors left\n", i, r.nerrors);
                failures++;
            }
            if (v != Y && r.nkept == 0) {
                fprintf(stderr, "case %zu: %s without an explanation\n", i,
                        mcps_schema_verdict_name(v));
                failures++;
            }
            mcps_schema_result_free(&r);
        }
        cJSON_Delete(schema);
        cJSON_Delete(inst);
    }
    assert_int_equal(failures, 0);
}

/* ---- formats, with format as an assertion ---------------------------------------- */

typedef struct fcase {
    const char *format;
    const char *value;
    bool valid;
} fcase;

static const fcase FORMATS[] = {
    {"date-time", "2024-03-01T00:59:60+01:00", true},
    {"date-time", "2024-02-29T23:59:60+01:00", false},
    {"time", "23:59:60Z", true},
    {"time", "22:59:60Z", false},
    {"duration", "P1Y2M3DT4H5M6S", true},
    {"duration", "P2W", true},
    {"duration", "PT1H6S", false},
    {"duration", "P1YT", false},
    {"json-pointer", "/a~1b/~0", true},
    {"json-pointer", "/a~2", false},
    {"relative-json-pointer", "0#", true},
    {"relative-json-pointer", "01/a", false},
    {"uri-reference", "../a?b#c", true},
    {"uri-reference", "a b", false},
    {"date-time", "2024-01-15t10:30:00.123z", true},
    {"date-time", "2023-02-29T00:00:00Z", false},
    {"date-time", "2024-01-15 10:30:00Z", false},
    {"date-time", "2024-01-15T10:30:00", false},
    {"date-time", "2024-01-15T24:00:00Z", false},
    {"date", "2000-02-29", true},
    {"date", "1900-02-29", false},
    {"date", "2024-4-01", false},
    {"time", "08:30:00Z", true},
    {"time", "08:30:00.5-05:30", true},
    {"time", "08:30", false},
    {"email", "joe.bloggs+tag@example.co.uk", true},
    {"email", "user@[192.168.0.1]", true},
    {"email", "no-at-sign", false},
    {"email", ".dot@example.com", false},
    {"email", "a..b@example.com", false},
    {"email", "a@-bad-.com", false},
    {"uri", "https://example.com/path?q=1#frag", true},
    {"uri", "urn:isbn:0451450523", true},
    {"uri", "//example.com/relative", false},
    {"uri", "https://exa mple.com", false},
    {"uri", "http://x/%zz", false},
    {"uuid", "123e4567-e89b-12d3-a456-426614174000", true},
    {"uuid", "123e4567e89b12d3a456426614174000", false},
    {"uuid", "123e4567-e89b-12d3-a456-42661417400g", false},
    {"ipv4", "192.168.0.1", true},
    {"ipv4", "256.1.1.1", false},
    {"ipv4", "01.1.1.1", false},
    {"ipv4", "1.1.1", false},
    {"ipv6", "::1", true},
    {"ipv6", "2001:db8::8a2e:370:7334", true},
    {"ipv6", "::ffff:192.168.0.1", true},
    {"ipv6", "1:2:3:4:5:6:7:8", true},
    {"ipv6", "1:2:3:4:5:6:7:8:9", false},
    {"ipv6", "1::2::3", false},
    {"ipv6", "12345::", false},
    {"hostname", "example.com", true},
    {"hostname", "-bad.example", false},
    {"regex", "^[a-z]+$", true},
    {"regex", "(?=lookahead is valid)", true},
    {"regex", "([unclosed", false},
    {"x-unknown-format", "anything", true},
};

static void test_formats(void **state)
{
    (void)state;
    mcps_schema_options opts = mcps_schema_default_options();
    opts.format_assertion = true;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof FORMATS / sizeof *FORMATS; i++) {
        cJSON *schema = cJSON_CreateObject(), *inst = cJSON_CreateString(FORMATS[i].value);
        cJSON_AddStringToObject(schema, "format", FORMATS[i].format);
        mcps_schema_result r;
        mcps_schema_verdict v = mcps_schema_validate(schema, inst, &opts, &r);
        if (v != (FORMATS[i].valid ? Y : N)) {
            fprintf(stderr, "format %s: \"%s\" should be %s\n", FORMATS[i].format, FORMATS[i].value,
                    FORMATS[i].valid ? "valid" : "invalid");
            failures++;
        }
        mcps_schema_result_free(&r);
        cJSON_Delete(schema);
        cJSON_Delete(inst);
    }
    assert_int_equal(failures, 0);
}

/* ---- what the errors say ------------------------------------------------------------ */

static void expect_error(const mcps_schema_result *r, size_t i, const char *ipath,
                         const char *spath, const char *message)
{
    assert_true(i < r->nkept);
    assert_string_equal(r->errors[i].instance_path, ipath);
    assert_string_equal(r->errors[i].schema_path, spath);
    assert_string_equal(r->errors[i].message, message);
}

static void test_error_locations(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = q("{'$defs':{'pos':{'type':'integer','minimum':1}},'type':'object',"
                 "'properties':{'id':{'type':'integer'},'a/b':{'type':'string'},"
                 "'n':{'$ref':'#/$defs/pos'},'tags':{'items':{'maxLength':2}}},"
                 "'required':['id','name']}");
    cJSON *i = q("{'id':'x','a/b':1,'n':0,'tags':['ok','\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e']}");
    assert_int_equal(mcps_schema_validate(s, i, NULL, &r), N);
    assert_int_equal(r.nerrors, 5);
    expect_error(&r, 0, "/id", "/properties/id/type", "expected integer, got string");
    expect_error(&r, 1, "/a~1b", "/properties/a~1b/type", "expected string, got number");
    expect_error(&r, 2, "/n", "/$defs/pos/minimum", "0 is less than the minimum 1");
    expect_error(&r, 3, "/tags/1", "/properties/tags/items/maxLength",
                 "string is 3 characters long, more than maxLength 2");
    expect_error(&r, 4, "", "/required", "missing required property \"name\"");
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
    cJSON_Delete(i);

    /* a passing anyOf branch leaves no trace of the failing one */
    s = q("{'anyOf':[{'type':'string'},{'type':'integer'}]}");
    i = q("5");
    assert_int_equal(mcps_schema_validate(s, i, NULL, &r), Y);
    assert_int_equal(r.nerrors, 0);
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
    cJSON_Delete(i);

    /* unknown dialect: validated as 2020-12, and said so */
    s = q("{'$schema':'https://example.invalid/x','type':'string'}");
    i = q("'a'");
    assert_int_equal(mcps_schema_validate(s, i, NULL, &r), Y);
    assert_int_equal(r.dialect, MCPS_SCHEMA_DIALECT_UNKNOWN);
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

static void test_errors_are_bounded(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = q("{'items':{'type':'string'}}"), *arr = cJSON_CreateArray();
    for (int k = 0; k < 100; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(k));
    assert_int_equal(mcps_schema_validate(s, arr, NULL, &r), N);
    assert_int_equal(r.nerrors, 100);
    assert_int_equal(r.nkept, MCPS_SCHEMA_MAX_ERRORS);
    assert_string_equal(r.errors[15].instance_path, "/15");
    mcps_schema_result_free(&r);
    assert_int_equal(r.nkept, 0);
    cJSON_Delete(s);
    cJSON_Delete(arr);
}

static void test_hand_built_numbers(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = q("{'type':'integer','multipleOf':0.5,'maximum':10}");
    cJSON *n = cJSON_CreateNumber(4.0);
    assert_int_equal(mcps_schema_validate(s, n, NULL, &r), Y);
    cJSON_SetNumberValue(n, 4.5);
    assert_int_equal(mcps_schema_validate(s, n, NULL, &r), N);
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
    cJSON_Delete(n);
}

/* ---- bounds: hostile schemas end quickly with "too complex" ---------------------------- */

static cJSON *parse_deep(const char *text)
{
    mcps_json_limits lim = mcps_json_default_limits();
    mcps_json_result res;
    lim.max_depth = 100000;
    assert_true(mcps_json_parse(text, strlen(text), &lim, &res));
    return res.root;
}

static void test_deep_allof_nest(void **state)
{
    (void)state;
    mcps_buf b = {0};
    for (int k = 0; k < 10000; k++)
        mcps_buf_puts(&b, "{\"allOf\":[");
    mcps_buf_puts(&b, "{}");
    for (int k = 0; k < 10000; k++)
        mcps_buf_puts(&b, "]}");
    cJSON *s = parse_deep(b.data), *i = q("1");
    mcps_buf_free(&b);
    mcps_schema_result r;
    mcps_schema_prng prng;
    clock_t t0 = clock();
    assert_int_equal(mcps_schema_validate(s, i, NULL, &r), TC);
    assert_int_equal(r.nerrors, 1);
    assert_int_equal(r.errors[0].kind, TC);
    mcps_schema_result_free(&r);
    assert_int_equal(mcps_schema_check(s, NULL, &r), TC);
    mcps_schema_result_free(&r);
    mcps_schema_prng_seed(&prng, 1);
    cJSON *g = mcps_schema_generate(s, &prng);
    cJSON_Delete(g);
    assert_true(ms_since(t0) < 2000);
    cJSON_Delete(s);
    cJSON_Delete(i);
}

/* d30 = anyOf[d29, d29], ... d0 = string: 2^30 paths through a small schema. */
static cJSON *exponential_schema(void)
{
    mcps_buf b = {0};
    mcps_buf_puts(&b, "{\"$defs\":{\"d0\":{\"type\":\"string\"}");
    for (int k = 1; k <= 30; k++)
        mcps_buf_printf(
            &b, ",\"d%d\":{\"anyOf\":[{\"$ref\":\"#/$defs/d%d\"},{\"$ref\":\"#/$defs/d%d\"}]}", k,
            k - 1, k - 1);
    mcps_buf_puts(&b, "},\"$ref\":\"#/$defs/d30\"}");
    cJSON *s = mcps_json_parse_simple(b.data, b.len);
    mcps_buf_free(&b);
    return s;
}

static void test_work_budget(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = exponential_schema(), *num = q("1"), *str = q("'x'");
    assert_non_null(s);
    clock_t t0 = clock();
    assert_int_equal(mcps_schema_validate(s, num, NULL, &r), TC);
    assert_true(r.steps >= MCPS_SCHEMA_DEFAULT_MAX_STEPS);
    mcps_schema_result_free(&r);
    assert_true(ms_since(t0) < 10000);
    assert_int_equal(mcps_schema_validate(s, str, NULL, &r), Y); /* first branches succeed */
    mcps_schema_result_free(&r);
    assert_int_equal(mcps_schema_check(s, NULL, &r), Y);
    mcps_schema_result_free(&r);

    /* a small budget set by the caller is honoured */
    mcps_schema_options o = {.max_steps = 50};
    cJSON *wide = q("{'items':{'type':'integer'}}"), *arr = cJSON_CreateArray();
    for (int k = 0; k < 100; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(k));
    assert_int_equal(mcps_schema_validate(wide, arr, &o, &r), TC);
    mcps_schema_result_free(&r);
    cJSON_Delete(wide);
    cJSON_Delete(arr);
    cJSON_Delete(s);
    cJSON_Delete(num);
    cJSON_Delete(str);
}

static void test_deep_instance(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = q("{'type':'array','items':{'$ref':'#'}}");
    mcps_buf b = {0};
    for (int k = 0; k < 50; k++)
        mcps_buf_putc(&b, '[');
    for (int k = 0; k < 50; k++)
        mcps_buf_putc(&b, ']');
    cJSON *shallow = mcps_json_parse_simple(b.data, b.len);
    mcps_buf_free(&b);
    for (int k = 0; k < 900; k++)
        mcps_buf_putc(&b, '[');
    for (int k = 0; k < 900; k++)
        mcps_buf_putc(&b, ']');
    cJSON *deep = mcps_json_parse_simple(b.data, b.len);
    mcps_buf_free(&b);
    assert_int_equal(mcps_schema_validate(s, shallow, NULL, &r), Y);
    mcps_schema_result_free(&r);
    assert_int_equal(mcps_schema_validate(s, deep, NULL, &r), TC);
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
    cJSON_Delete(shallow);
    cJSON_Delete(deep);
}

static void test_big_unique_items(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = q("{'uniqueItems':true}"), *arr = cJSON_CreateArray();
    for (int k = 0; k < 20000; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateNumber(k));
    clock_t t0 = clock();
    assert_int_equal(mcps_schema_validate(s, arr, NULL, &r), Y);
    mcps_schema_result_free(&r);
    cJSON_AddItemToArray(arr, mcps_json_create_number_text("1.0e3"));
    assert_int_equal(mcps_schema_validate(s, arr, NULL, &r), N);
    assert_true(strstr(r.errors[0].message, "1000") != NULL);
    mcps_schema_result_free(&r);
    assert_true(ms_since(t0) < 3000);
    cJSON_Delete(s);
    cJSON_Delete(arr);
}

/* ---- the regex engine --------------------------------------------------------------- */

enum { NOMATCH = 0, MATCH = 1, SYNTAX = 2, UNSUP = 3, BIG = 4 };

typedef struct rcase {
    const char *pattern;
    const char *text;
    int want;
} rcase;

static const rcase REGEXES[] = {
    {"abc", "xxabcxx", MATCH},
    {"^abc", "xxabc", NOMATCH},
    {"abc$", "xxabc", MATCH},
    {"^$", "", MATCH},
    {"^a.c$",
     "a\xe6\x97\xa5"
     "c",
     MATCH},
    {"^a.c$", "a\nc", NOMATCH},
    {"^[a-z]+$", "hello", MATCH},
    {"^[a-z]+$", "Hello", NOMATCH},
    {"^[^0-9]*$", "abc", MATCH},
    {"^[^0-9]*$", "ab1c", NOMATCH},
    {"^[\\w.-]+@[\\w-]+\\.[a-z]{2,}$", "john.doe@example.com", MATCH},
    {"^\\d{3}-\\d{4}$", "555-1234", MATCH},
    {"^\\d{3}-\\d{4}$", "555-12345", NOMATCH},
    {"^\\D+$", "abc", MATCH},
    {"^\\W$", "a", NOMATCH},
    {"^\\s+\\S$", " \t\xc2\xa0x", MATCH},
    {"^[\\d\\s]+$", "1 2", MATCH},
    {"^[\\D]$", "5", NOMATCH},
    {"^(foo|bar)baz$", "barbaz", MATCH},
    {"^(foo|bar)baz$", "bazbaz", NOMATCH},
    {"^(?:ab)*c$", "ababc", MATCH},
    {"^(?<year>\\d{4})-\\d\\d$", "2024-06", MATCH},
    {"^a{2}$", "aa", MATCH},
    {"^a{2}$", "aaa", NOMATCH},
    {"^a{2,}$", "aaaa", MATCH},
    {"^a{2,3}$", "aaaa", NOMATCH},
    {"^a{0,2}b$", "b", MATCH},
    {"^a+?$", "aaa", MATCH},
    {"^a*?b??c{1,2}?$", "aacc", MATCH},
    {"^.{2,3}$", "\xc3\xa9\xe6\x97\xa5", MATCH},
    {"\\bfoo\\b", "a foo b", MATCH},
    {"\\bfoo\\b", "afoob", NOMATCH},
    {"\\Boo\\B", "foob", MATCH},
    {"^\\u00e9$", "\xc3\xa9", MATCH},
    {"^\\u{1F600}$", "\xf0\x9f\x98\x80", MATCH},
    {"^\\uD83D\\uDE00$", "\xf0\x9f\x98\x80", MATCH},
    {"^[\\u0061-\\u0063]+$", "abc", MATCH},
    {"^\\x41$", "A", MATCH},
    {"^\\t\\n$", "\t\n", MATCH},
    {"^\\/\\.\\*$", "/.*", MATCH},
    {"^[.]$", "x", NOMATCH},
    {"^[\\]]$", "]", MATCH},
    {"^[a-]$", "-", MATCH},
    {"a{", "a{", MATCH},
    {"a{1", "a{1", MATCH},
    {"}]", "}]", MATCH},
    {"^[]$", "", NOMATCH},
    {"^[^]$", "x", MATCH},
    {"a|", "b", MATCH},
    {"()", "", MATCH},
    {"(a*)*b", "aaab", MATCH},
    {"^(a|ab)(c|bcd)(d*)$", "abcd", MATCH},
    {"(?=a)", "a", UNSUP},
    {"(?!a)", "a", UNSUP},
    {"(?<=a)b", "ab", UNSUP},
    {"(?<!a)b", "ab", UNSUP},
    {"(a)\\1", "aa", UNSUP},
    {"(?<n>a)\\k<n>", "aa", UNSUP},
    {"^\\p{L}+$", "a\xc3\xa9", MATCH},
    {"^\\p{Letter}+$", "a1", NOMATCH},
    {"^\\P{L}$", "a", NOMATCH},
    {"^[\\p{Nd}x]+$", "x4\xe0\xa7\xaa", MATCH},
    {"^\\p{digit}$", "7", MATCH},
    {"^\\p{gc=Lu}$", "A", MATCH},
    {"^\\p{General_Category=Lu}$", "a", NOMATCH},
    {"\\p{Script=Greek}", "a", UNSUP},
    {"\\p{Alphabetic}", "a", UNSUP},
    {"\\p{gc=Nope}", "a", SYNTAX},
    {"\\p", "a", SYNTAX},
    {"\\p{}", "a", SYNTAX},
    {"[", "x", SYNTAX},
    {"(", "x", SYNTAX},
    {")", "x", SYNTAX},
    {"a**", "a", SYNTAX},
    {"*a", "a", SYNTAX},
    {"a{3,2}", "a", SYNTAX},
    {"^*", "a", SYNTAX},
    {"[z-a]", "a", SYNTAX},
    {"[\\d-z]", "a", SYNTAX},
    {"(?x)", "a", SYNTAX},
    {"\\", "a", SYNTAX},
    {"(x{1000}){1000}", "x", BIG},
    {"((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((a))))))))))))))))))))))))"
     "))))))))))))))))))))))))))))))))))))))))))",
     "a", BIG},
};

static int run_regex(const char *pattern, const char *text, size_t *budget)
{
    mcps_schema_regex *re;
    char why[128];
    mcps_schema_regex_status st =
        mcps_schema_regex_compile(pattern, strlen(pattern), &re, why, sizeof why);
    if (st == MCPS_SCHEMA_REGEX_SYNTAX)
        return SYNTAX;
    if (st == MCPS_SCHEMA_REGEX_UNSUPPORTED)
        return UNSUP;
    if (st == MCPS_SCHEMA_REGEX_TOO_BIG)
        return BIG;
    int r = mcps_schema_regex_search(re, text, strlen(text), budget);
    mcps_schema_regex_free(re);
    return r;
}

static void test_regex_table(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof REGEXES / sizeof *REGEXES; i++) {
        size_t budget = 1000000;
        int got = run_regex(REGEXES[i].pattern, REGEXES[i].text, &budget);
        if (got != REGEXES[i].want) {
            fprintf(stderr, "regex /%s/ on \"%s\": got %d, want %d\n", REGEXES[i].pattern,
                    REGEXES[i].text, got, REGEXES[i].want);
            failures++;
        }
    }
    assert_int_equal(failures, 0);
}

static void test_regex_why(void **state)
{
    (void)state;
    mcps_schema_regex *re;
    char why[128];
    assert_int_equal(mcps_schema_regex_compile("ab(?=c)", 7, &re, why, sizeof why),
                     MCPS_SCHEMA_REGEX_UNSUPPORTED);
    assert_null(re);
    assert_string_equal(why, "lookahead at offset 3");
    assert_int_equal(mcps_schema_regex_compile("a\\1", 3, &re, why, sizeof why),
                     MCPS_SCHEMA_REGEX_UNSUPPORTED);
    assert_true(strstr(why, "backreference") != NULL);
}

static void test_regex_catastrophic(void **state)
{
    (void)state;
    char text[64];
    memset(text, 'a', 40);
    strcpy(text + 40, "!");
    clock_t t0 = clock();
    size_t budget = 10000000;
    assert_int_equal(run_regex("^(a+)+$", text, &budget), NOMATCH);
    assert_true(10000000 - budget < 2000); /* linear: a few VM steps per character */
    assert_int_equal(run_regex("^(a|a)*$", text, &budget), NOMATCH);
    assert_int_equal(run_regex("^(a|aa)+$", text, &budget), NOMATCH);
    assert_int_equal(run_regex("^(.*a){12}$", text, &budget), NOMATCH);
    text[40] = '\0';
    assert_int_equal(run_regex("^(a+)+$", text, &budget), MATCH);
    assert_true(ms_since(t0) < 200);

    /* through the validator, on a long string, within the default budget */
    char *big = malloc(100001);
    memset(big, 'x', 100000);
    big[100000] = '\0';
    cJSON *s = q("{'pattern':'^(x+x+)+y$'}"), *i = cJSON_CreateString(big);
    mcps_schema_result r;
    t0 = clock();
    mcps_schema_verdict v = mcps_schema_validate(s, i, NULL, &r);
    assert_true(v == N || v == TC);
    assert_true(ms_since(t0) < 5000);
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
    cJSON_Delete(i);
    free(big);

    /* the budget stops a search that would take too long */
    budget = 100;
    memset(text, 'a', 60);
    text[60] = '\0';
    assert_int_equal(run_regex("(a|b|c|d|e)*z", text, &budget), -1);
}

/* ---- meta-validation ---------------------------------------------------------------- */

typedef struct ccase {
    const char *schema;
    mcps_schema_verdict want;
    const char *where; /* pointer of the first problem; NULL when valid */
} ccase;

static const ccase CHECKS[] = {
    {"{'type':'object','properties':{'a':{'type':'string','minLength':1}},'required':['a']}", Y,
     NULL},
    {"true", Y, NULL},
    {"{'x-vendor-extension':[1,2],'title':'ok'}", Y, NULL},
    {"{'type':'object','properties':{'a':{'type':'strnig'}}}", SE, "/properties/a/type"},
    {"{'type':['string','string']}", SE, "/type/1"},
    {"{'type':['string',5]}", SE, "/type/1"},
    {"{'type':[]}", SE, "/type"},
    {"{'required':['a','a']}", SE, "/required/1"},
    {"{'required':'a'}", SE, "/required"},
    {"{'required':[1]}", SE, "/required/0"},
    {"{'properties':{'a':5}}", SE, "/properties/a"},
    {"{'properties':[]}", SE, "/properties"},
    {"{'minLength':-1}", SE, "/minLength"},
    {"{'minLength':1.5}", SE, "/minLength"},
    {"{'minLength':2.0}", Y, NULL},
    {"{'maxItems':'3'}", SE, "/maxItems"},
    {"{'multipleOf':0}", SE, "/multipleOf"},
    {"{'exclusiveMinimum':true}", SE, "/exclusiveMinimum"},
    {"{'uniqueItems':'yes'}", SE, "/uniqueItems"},
    {"{'enum':5}", SE, "/enum"},
    {"{'allOf':[]}", SE, "/allOf"},
    {"{'anyOf':[{},3]}", SE, "/anyOf/1"},
    {"{'title':5}", SE, "/title"},
    {"{'pattern':'('}", SE, "/pattern"},
    {"{'pattern':'(?=x)'}", UN, "/pattern"},
    {"{'patternProperties':{'[':{}}}", SE, "/patternProperties/["},
    {"{'dependentRequired':{'a':[1]}}", SE, "/dependentRequired/a/0"},
    {"{'dependentRequired':{'a':['b','b']}}", SE, "/dependentRequired/a/1"},
    {"{'$defs':{'a/b':{'type':'x'}}}", SE, "/$defs/a~1b/type"},
    {"{'$defs':{'a~b':{'type':'x'}}}", SE, "/$defs/a~0b/type"},
    {"{'items':[{}]}", SE, "/items"},
    {"{" D7 "'items':[{}],'additionalItems':false}", Y, NULL},
    {"{" D7 "'items':[5]}", SE, "/items/0"},
    {"{" D7 "'definitions':{'a':{'type':'integer'}},'$ref':'#/definitions/a'}", Y, NULL},
    {"{" D7 "'$defs':{'a':{'type':'x'}},'$ref':'#/$defs/a'}", SE, "/$defs/a/type"},
    {"{" D7 "'$defs':{'a':{'type':'x'}}}", Y, NULL},
    {"{'x-vendor':{'s':{'minimum':'0'}},'$ref':'#/x-vendor/s'}", SE, "/x-vendor/s/minimum"},
    {"{'$defs':{'a b':{'type':'x'}},'$ref':'#/$defs/a%20b'}", SE, "/$defs/a b/type"},
    {"{" D7 "'dependencies':{'a':['b'],'c':{'type':'x'}}}", SE, "/dependencies/c/type"},
    {"{'$ref':'#/$defs/nope'}", SE, "/$ref"},
    {"{'$ref':'#/$defs/a~2'}", SE, "/$ref"},
    {"{'$defs':{'n':5},'$ref':'#/$defs/n'}", SE, "/$defs/n"},
    {"{'$ref':'#'}", SE, "/$ref"},
    {"{'$defs':{'a':{'allOf':[{'$ref':'#/$defs/a'}]}}}", SE, "/$defs/a/allOf/0/$ref"},
    {"{'$defs':{'a':{'$ref':'#/$defs/b'},'b':{'not':{'$ref':'#/$defs/a'}}}}", SE, "/$defs/a/$ref"},
    {"{'$defs':{'a':{'properties':{'x':{'$ref':'#/$defs/a'}}}},'$ref':'#/$defs/a'}", Y, NULL},
    {"{'$ref':'https://example.com/x.json'}", UN, "/$ref"},
    {"{'$schema':'https://example.invalid/x'}", UN, "/$schema"},
    {"{'$schema':'http://json-schema.org/draft-04/schema#','type':'x'}", SE, "/$schema"},
    {"{'$schema':'https://json-schema.org/draft/2020-12/schema','prefixItems':[{}]}", Y, NULL},
    {"[1]", SE, ""},
};

static void test_check_table(void **state)
{
    (void)state;
    size_t failures = 0;
    for (size_t i = 0; i < sizeof CHECKS / sizeof *CHECKS; i++) {
        cJSON *s = q(CHECKS[i].schema);
        mcps_schema_result r;
        assert_non_null(s);
        mcps_schema_verdict v = mcps_schema_check(s, NULL, &r);
        bool ok = v == CHECKS[i].want;
        if (ok && CHECKS[i].where)
            ok = r.nkept > 0 && strcmp(r.errors[0].schema_path, CHECKS[i].where) == 0 &&
                 strcmp(r.errors[0].instance_path, "") == 0;
        if (ok && !CHECKS[i].where)
            ok = r.nerrors == 0;
        if (!ok) {
            fprintf(stderr, "check %zu: %s: want %s at %s\n", i, CHECKS[i].schema,
                    mcps_schema_verdict_name(CHECKS[i].want),
                    CHECKS[i].where ? CHECKS[i].where : "-");
            dump("got", &r);
            failures++;
        }
        mcps_schema_result_free(&r);
        cJSON_Delete(s);
    }
    assert_int_equal(failures, 0);
}

static void test_check_reports_every_problem(void **state)
{
    (void)state;
    mcps_schema_result r;
    cJSON *s = q("{'type':'obj','properties':{'a':{'minimum':'0'},'b':{'required':[true]}},"
                 "'pattern':'[','$ref':'#/nowhere'}");
    assert_int_equal(mcps_schema_check(s, NULL, &r), SE);
    assert_int_equal(r.nerrors, 5);
    const char *where[] = {"/type", "/properties/a/minimum", "/properties/b/required/0", "/pattern",
                           "/$ref"};
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(r.errors[i].schema_path, where[i]);
        assert_int_equal(r.errors[i].kind, SE);
    }
    mcps_schema_result_free(&r);
    cJSON_Delete(s);
}

static void test_dialect_of(void **state)
{
    (void)state;
    static const struct {
        const char *schema;
        mcps_schema_dialect want;
    } d[] = {
        {"{}", MCPS_SCHEMA_DIALECT_2020_12},
        {"true", MCPS_SCHEMA_DIALECT_2020_12},
        {"{'$schema':'https://json-schema.org/draft/2020-12/schema'}", MCPS_SCHEMA_DIALECT_2020_12},
        {"{'$schema':'https://json-schema.org/draft/2020-12/schema#'}",
         MCPS_SCHEMA_DIALECT_2020_12},
        {"{'$schema':'http://json-schema.org/draft-07/schema#'}", MCPS_SCHEMA_DIALECT_DRAFT_07},
        {"{'$schema':'http://json-schema.org/draft-07/schema'}", MCPS_SCHEMA_DIALECT_DRAFT_07},
        {"{'$schema':'http://json-schema.org/draft-04/schema#'}", MCPS_SCHEMA_DIALECT_UNKNOWN},
        {"{'$schema':5}", MCPS_SCHEMA_DIALECT_UNKNOWN},
    };
    for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
        cJSON *s = q(d[i].schema);
        assert_int_equal(mcps_schema_dialect_of(s), d[i].want);
        cJSON_Delete(s);
    }
}

/* ---- generation --------------------------------------------------------------------- */

static const char *const TOOL_SCHEMAS[] = {
    /* a weather tool */
    "{'type':'object','properties':{"
    "'city':{'type':'string','minLength':1,'maxLength':80,'description':'City name'},"
    "'units':{'type':'string','enum':['metric','imperial'],'default':'metric'},"
    "'days':{'type':'integer','minimum':1,'maximum':14},"
    "'include_hourly':{'type':'boolean'},"
    "'lat':{'type':'number','minimum':-90,'maximum':90},"
    "'lon':{'type':'number','exclusiveMinimum':-180,'exclusiveMaximum':180}},"
    "'required':['city'],'additionalProperties':false}",
    /* a file search tool: enum, format and array fields */
    "{'type':'object','properties':{"
    "'query':{'type':'string','minLength':1},"
    "'root':{'type':'string','pattern':'^/[a-z0-9_/.-]*$'},"
    "'kinds':{'type':'array','items':{'type':'string','enum':['file','dir','symlink']},"
    "'uniqueItems':true,'minItems':1,'maxItems':3},"
    "'modified_after':{'type':'string','format':'date-time'},"
    "'owner_email':{'type':'string','format':'email'},"
    "'session':{'type':'string','format':'uuid'},"
    "'host':{'type':'string','format':'ipv4'},"
    "'max_results':{'type':'integer','minimum':1,'maximum':500,'default':50},"
    "'extensions':{'type':'array','items':{'type':'string','pattern':'^\\\\.[a-z0-9]{1,8}$'}},"
    "'case_sensitive':{'type':'boolean'}},"
    "'required':['query','kinds'],'additionalProperties':false}",
    /* nested objects through $defs, oneOf, multipleOf */
    "{'type':'object','$defs':{"
    "'address':{'type':'object','properties':{'street':{'type':'string'},"
    "'zip':{'type':'string','pattern':'^[0-9]{5}(-[0-9]{4})?$'},'country':{'const':'US'}},"
    "'required':['street','zip','country'],'additionalProperties':false},"
    "'person':{'type':'object','properties':{'name':{'type':'string','minLength':1},"
    "'age':{'type':'integer','minimum':0,'maximum':150},'home':{'$ref':'#/$defs/address'},"
    "'tags':{'type':'array','items':{'type':'string','maxLength':10},'minItems':1,'maxItems':4}},"
    "'required':['name','home']}},"
    "'properties':{'owner':{'$ref':'#/$defs/person'},"
    "'contacts':{'type':'array','items':{'$ref':'#/$defs/person'},'maxItems':3},"
    "'priority':{'oneOf':[{'type':'integer','minimum':1,'maximum':5},"
    "{'type':'string','enum':['low','high']}]},"
    "'price':{'type':'number','multipleOf':0.01,'exclusiveMinimum':0,'maximum':1000}},"
    "'required':['owner','priority','price']}",
    /* draft-07 as zod-to-json-schema writes it: tuples, anyOf with null */
    "{" D7 "'type':'object','properties':{"
    "'mode':{'anyOf':[{'type':'string','enum':['fast','slow']},{'type':'null'}]},"
    "'ids':{'type':'array','items':{'type':'integer','minimum':0}},"
    "'point':{'type':'array','items':[{'type':'number'},{'type':'number'}],"
    "'additionalItems':false,'minItems':2},"
    "'meta':{'$ref':'#/definitions/meta'}},"
    "'definitions':{'meta':{'type':'object','additionalProperties':{'type':'string'},"
    "'propertyNames':{'pattern':'^[a-z]+$'}}},"
    "'required':['ids','point'],'additionalProperties':false}",
    /* an elicitation requestedSchema */
    "{'type':'object','properties':{"
    "'name':{'type':'string','title':'Name'},"
    "'email':{'type':'string','format':'email'},"
    "'age':{'type':'integer','minimum':18},"
    "'birthday':{'type':'string','format':'date'},"
    "'subscribe':{'type':'boolean','default':false},"
    "'plan':{'type':'string','oneOf':[{'const':'free','title':'Free'},"
    "{'const':'pro','title':'Pro'}]},"
    "'colors':{'type':'array','items':{'type':'string','enum':['red','green','blue']},"
    "'uniqueItems':true}},"
    "'required':['name','email']}",
    /* composition: allOf over a $ref, dependentRequired, contains */
    "{'$defs':{'base':{'type':'object','properties':{'step':{'type':'integer','multipleOf':5},"
    "'label':{'type':'string','maxLength':8}}}},"
    "'allOf':[{'$ref':'#/$defs/base'},{'required':['step']}],"
    "'properties':{'flags':{'type':'array','contains':{'const':'x'},'items':{'type':'string'}},"
    "'label':{'type':'string'}},"
    "'dependentRequired':{'label':['flags']}}",
};

static cJSON *tool_schema(size_t i)
{
    cJSON *s = q(TOOL_SCHEMAS[i]);
    assert_non_null(s);
    return s;
}

static void test_tool_schemas_are_valid(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof TOOL_SCHEMAS / sizeof *TOOL_SCHEMAS; i++) {
        cJSON *s = tool_schema(i);
        mcps_schema_result r;
        if (mcps_schema_check(s, NULL, &r) != Y)
            dump(TOOL_SCHEMAS[i], &r);
        assert_int_equal(r.verdict, Y);
        mcps_schema_result_free(&r);
        cJSON_Delete(s);
    }
}

static void test_generate_validates(void **state)
{
    (void)state;
    mcps_schema_options strict = mcps_schema_default_options();
    strict.format_assertion = true;
    for (size_t i = 0; i < sizeof TOOL_SCHEMAS / sizeof *TOOL_SCHEMAS; i++) {
        cJSON *s = tool_schema(i);
        for (uint64_t seed = 0; seed < 50; seed++) {
            mcps_schema_prng a, b;
            mcps_schema_prng_seed(&a, seed);
            mcps_schema_prng_seed(&b, seed);
            cJSON *v = mcps_schema_generate(s, &a), *again = mcps_schema_generate(s, &b);
            if (!v)
                fprintf(stderr, "schema %zu seed %llu: nothing generated\n", i,
                        (unsigned long long)seed);
            assert_non_null(v);
            assert_non_null(again);
            assert_true(mcps_json_equal(v, again)); /* same seed, same value */
            mcps_schema_result r;
            if (mcps_schema_validate(s, v, &strict, &r) != Y) {
                char *text = mcps_json_print(v, NULL);
                fprintf(stderr, "schema %zu seed %llu: %s\n", i, (unsigned long long)seed, text);
                free(text);
                dump("generated", &r);
            }
            assert_int_equal(r.verdict, Y);
            mcps_schema_result_free(&r);
            cJSON_Delete(v);
            cJSON_Delete(again);
        }
        cJSON_Delete(s);
    }
}

static void test_generate_varies_and_gives_up(void **state)
{
    (void)state;
    mcps_schema_prng p;
    cJSON *s = tool_schema(0);
    mcps_schema_prng_seed(&p, 7);
    cJSON *a = mcps_schema_generate(s, &p), *b = mcps_schema_generate(s, &p);
    cJSON *c = mcps_schema_generate(s, &p);
    assert_false(mcps_json_equal(a, b) && mcps_json_equal(b, c));
    cJSON_Delete(a);
    cJSON_Delete(b);
    cJSON_Delete(c);
    cJSON_Delete(s);

    static const char *const impossible[] = {
        "false",
        "{'type':'integer','minimum':5,'maximum':4}",
        "{'allOf':[{'type':'string'},{'type':'integer'}]}",
        "{'enum':[]}",
        "{'$ref':'#/nowhere'}",
        "{'type':'string','pattern':'(?=x)'}",
    };
    for (size_t i = 0; i < sizeof impossible / sizeof *impossible; i++) {
        s = q(impossible[i]);
        mcps_schema_prng_seed(&p, i);
        assert_null(mcps_schema_generate(s, &p));
        cJSON_Delete(s);
    }
}

static void test_mutate_breaks_one_keyword(void **state)
{
    (void)state;
    mcps_schema_options strict = mcps_schema_default_options();
    strict.format_assertion = true;
    size_t made = 0;
    for (size_t i = 0; i < sizeof TOOL_SCHEMAS / sizeof *TOOL_SCHEMAS; i++) {
        cJSON *s = tool_schema(i);
        for (uint64_t seed = 0; seed < 20; seed++) {
            mcps_schema_prng p;
            mcps_schema_prng_seed(&p, seed);
            cJSON *valid = mcps_schema_generate(s, &p);
            mcps_schema_mutation m;
            assert_non_null(valid);
            if (!mcps_schema_mutate(s, valid, &p, &m)) {
                cJSON_Delete(valid);
                continue;
            }
            made++;
            mcps_schema_result r;
            assert_int_equal(mcps_schema_validate(s, m.instance, &strict, &r), N);
            assert_int_equal(r.nerrors, 1);
            assert_string_equal(r.errors[0].schema_path, m.schema_path);
            assert_string_equal(r.errors[0].instance_path, m.instance_path);
            assert_true(strlen(m.description) > 0);
            mcps_schema_result_free(&r);
            mcps_schema_mutation_free(&m);
            assert_null(m.instance);
            cJSON_Delete(valid);
        }
        cJSON_Delete(s);
    }
    assert_true(made >= 100); /* nearly every value has something to break */

    /* an invalid starting value is refused */
    cJSON *s = q("{'type':'integer'}"), *bad = q("'x'");
    mcps_schema_mutation m;
    mcps_schema_prng p;
    mcps_schema_prng_seed(&p, 1);
    assert_false(mcps_schema_mutate(s, bad, &p, &m));
    assert_null(m.instance);
    cJSON_Delete(s);
    cJSON_Delete(bad);
}

/* Tool arguments stay an object: with nothing inside to break, there is no mutation. */
static void test_mutate_inside_keeps_object(void **state)
{
    (void)state;
    cJSON *bare = q("{'type':'object'}"), *empty = q("{}");
    cJSON *typed = q("{'type':'object','properties':{'n':{'type':'integer'}}}"), *n = q("{'n':1}");
    for (uint64_t seed = 0; seed < 10; seed++) {
        mcps_schema_prng p;
        mcps_schema_mutation m;
        mcps_schema_prng_seed(&p, seed);
        assert_false(mcps_schema_mutate_inside(bare, empty, &p, &m));
        assert_true(mcps_schema_mutate_inside(typed, n, &p, &m));
        assert_true(cJSON_IsObject(m.instance));
        mcps_schema_mutation_free(&m);
    }
    cJSON_Delete(bare);
    cJSON_Delete(empty);
    cJSON_Delete(typed);
    cJSON_Delete(n);
}

static void test_mutate_examples(void **state)
{
    (void)state;
    static const struct {
        const char *schema, *valid, *keyword;
    } ex[] = {
        {"{'type':'object','properties':{'n':{'type':'integer','maximum':10}}}", "{'n':3}", NULL},
        {"{'type':'object','required':['id'],'properties':{'id':{'type':'string'}}}", "{'id':'a'}",
         NULL},
        {"{'type':'array','items':{'type':'string'},'uniqueItems':true}", "['a','b']", NULL},
        {"{'type':'string','minLength':3}", "'abcd'", NULL},
    };
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        cJSON *s = q(ex[i].schema), *v = q(ex[i].valid);
        for (uint64_t seed = 0; seed < 10; seed++) {
            mcps_schema_prng p;
            mcps_schema_mutation m;
            mcps_schema_prng_seed(&p, seed);
            assert_true(mcps_schema_mutate(s, v, &p, &m));
            mcps_schema_result r;
            assert_int_equal(mcps_schema_validate(s, m.instance, NULL, &r), N);
            assert_int_equal(r.nerrors, 1);
            mcps_schema_result_free(&r);
            mcps_schema_mutation_free(&m);
        }
        cJSON_Delete(s);
        cJSON_Delete(v);
    }
}

static void test_prng(void **state)
{
    (void)state;
    mcps_schema_prng a, b;
    mcps_schema_prng_seed(&a, 42);
    mcps_schema_prng_seed(&b, 42);
    for (int i = 0; i < 100; i++)
        assert_true(mcps_schema_prng_next(&a) == mcps_schema_prng_next(&b));
    assert_int_equal(mcps_schema_prng_below(&a, 0), 0);
    for (int i = 0; i < 1000; i++)
        assert_true(mcps_schema_prng_below(&a, 7) < 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_keyword_table),
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_error_locations),
        cmocka_unit_test(test_errors_are_bounded),
        cmocka_unit_test(test_hand_built_numbers),
        cmocka_unit_test(test_deep_allof_nest),
        cmocka_unit_test(test_work_budget),
        cmocka_unit_test(test_deep_instance),
        cmocka_unit_test(test_big_unique_items),
        cmocka_unit_test(test_regex_table),
        cmocka_unit_test(test_regex_why),
        cmocka_unit_test(test_regex_catastrophic),
        cmocka_unit_test(test_check_table),
        cmocka_unit_test(test_check_reports_every_problem),
        cmocka_unit_test(test_dialect_of),
        cmocka_unit_test(test_tool_schemas_are_valid),
        cmocka_unit_test(test_generate_validates),
        cmocka_unit_test(test_generate_varies_and_gives_up),
        cmocka_unit_test(test_mutate_breaks_one_keyword),
        cmocka_unit_test(test_mutate_examples),
        cmocka_unit_test(test_mutate_inside_keeps_object),
        cmocka_unit_test(test_prng),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
