/*
 * faults_session.h - refserver faults: capabilities, logging, _meta, observer-only judgements.
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table.
 */
#ifndef RS_FAULTS_SESSION_H
#define RS_FAULTS_SESSION_H

#define RS_FAULTS_SESSION(X)                                                                       \
    X(TOOLS_UNDECLARED, "tools-undeclared", "CAP-SRV-003 CAP-GEN-003 DISC-003",                    \
      "leave tools out of the capabilities but serve tools/* anyway")                              \
    X(RESOURCES_UNDECLARED, "resources-undeclared", "CAP-SRV-002 CAP-GEN-003 DISC-003",            \
      "leave resources out of the capabilities but serve resources/* anyway")                      \
    X(PROMPTS_UNDECLARED, "prompts-undeclared", "CAP-SRV-001 CAP-GEN-003 DISC-003",                \
      "leave prompts out of the capabilities but serve prompts/* anyway")                          \
    X(COMPLETIONS_UNDECLARED, "completions-undeclared", "CAP-SRV-005 CAP-GEN-003",                 \
      "leave completions out of the capabilities but serve completion/complete anyway")            \
    X(LOGGING_UNDECLARED, "logging-undeclared", "CAP-GEN-003",                                     \
      "leave logging out of the capabilities but serve logging/setLevel anyway")                   \
    X(LOGGING_UNDECLARED_SILENT, "logging-undeclared-silent", "RPC-RSP-004",                       \
      "leave logging out of the capabilities and send no answer to logging/setLevel")              \
    X(ICON_BAD_SIZES, "icon-bad-sizes", "GEN-ICON-001",                                            \
      "give the serverInfo icon the size \"48\" instead of \"48x48\"")                             \
    X(RESERVED_META_REJECTED, "reserved-meta-rejected", "GEN-META-005",                            \
      "refuse a ping whose _meta has an unknown io.modelcontextprotocol/ key")                     \
    X(RESERVED_META_KEY, "reserved-meta-key", "GEN-META-003",                                      \
      "put refserver's own keys under MCP's reserved _meta prefixes in ping results")              \
    X(LOG_IGNORES_LEVEL, "log-ignores-level", "LOG-004",                                           \
      "send log messages below the level set with logging/setLevel")                               \
    X(LOG_SECRET, "log-secret", "LOG-007",                                                         \
      "log the value of REFSERVER_API_KEY after logging/setLevel")                                 \
    X(LOG_UNDECLARED_NOTIFY, "log-undeclared-notify", "CAP-SRV-004 CAP-GEN-003",                   \
      "leave logging out of the capabilities, yet send a log message after initialization")        \
    X(METHOD_FROM_LATER_REVISION, "method-from-later-revision", "LIFE-OP-001 LIFE-OP-002",         \
      "before 2025-11-25 send notifications/elicitation/complete, which only 2025-11-25 has")      \
    X(LIST_CHANGED_UNDECLARED, "list-changed-undeclared", "CAP-GEN-002 CAP-GEN-001",               \
      "declare no listChanged, yet send the three list_changed notifications after "               \
      "initialization")                                                                            \
    X(TASKS_EVERY_REVISION, "tasks-every-revision", "LIFE-OP-002 LIFE-OP-001",                     \
      "declare the tasks capability (2025-11-25 only) in every revision")

#endif
