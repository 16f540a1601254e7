# html_script.cmake - build step: html_script.js as a C header for html.c.
#
# report.html's Content Security Policy admits its one script by the script's
# SHA-256, so the digest must always be that of the text html.c embeds. Both
# come from the same bytes here, at build time: the script stays a readable
# .js file and no one pastes a hash by hand.
#
# cmake -DIN=html_script.js -DOUT=html_script.h -P html_script.cmake
file(READ "${IN}" js)
string(SHA256 sha "${js}")
if(js MATCHES "</[sS][cC][rR][iI][pP][tT]|<!--")
  message(FATAL_ERROR "${IN}: '</script' or '<!--' would end or bend the script element")
endif()
if(js MATCHES "\\?\\?")
  message(FATAL_ERROR "${IN}: '??' would be a C trigraph in the embedded string")
endif()
string(REPLACE "\\" "\\\\" c "${js}")
string(REPLACE "\"" "\\\"" c "${c}")
string(REPLACE "\n" "\\n\"\n    \"" c "${c}")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1, " digest "${sha}")
file(WRITE "${OUT}.tmp"
  "/* Generated from harness/report/html_script.js by html_script.cmake: do not edit. */\n"
  "static const char html_script[] =\n    \"${c}\";\n"
  "static const unsigned char html_script_sha256[32] = {${digest}};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
