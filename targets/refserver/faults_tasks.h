/*
 * faults_tasks.h - refserver faults: tasks (2025-11-25).
 * One X(ENUM_SUFFIX, "name", "REQUIREMENT-IDS", "one-line description") per fault;
 * faults.h joins the areas into one table.
 */
#ifndef RS_FAULTS_TASKS_H
#define RS_FAULTS_TASKS_H

#define RS_FAULTS_TASKS(X)                                                                         \
    X(TASK_NO_CAPABILITY, "task-no-capability", "TASK-007 CAP-SRV-006",                            \
      "in 2025-11-25 accept task-augmented calls but do not declare the tasks capability")         \
    X(TASK_STATUS_NOT_WORKING, "task-status-not-working", "TASK-011",                              \
      "create tasks in status \"submitted\" instead of \"working\"")                               \
    X(TASK_FORBIDDEN_ACCEPTED, "task-forbidden-accepted", "TASK-004",                              \
      "create a task for a tool that forbids tasks instead of answering -32601")                   \
    X(TASK_REQUIRED_PLAIN_ACCEPTED, "task-required-plain-accepted", "TASK-006",                    \
      "run a tool that requires tasks (slow-task) on a plain call instead of answering -32601")    \
    X(TASK_BAD_TIMESTAMPS, "task-bad-timestamps", "TASK-013",                                      \
      "send a task's createdAt as epoch milliseconds (a number), not an ISO 8601 string")          \
    X(TASK_RESULT_NO_RELATED_META, "task-result-no-related-meta", "TASK-016",                      \
      "omit _meta io.modelcontextprotocol/related-task from tasks/result")                         \
    X(TASK_UNKNOWN_ID_WRONG_CODE, "task-unknown-id-wrong-code", "TASK-025",                        \
      "answer an unknown taskId in tasks/get, tasks/result, tasks/cancel with -32603, not -32602") \
    X(TASK_CANCEL_TERMINAL_ACCEPTED, "task-cancel-terminal-accepted", "TASK-023",                  \
      "answer tasks/cancel of a finished task with the unchanged task instead of -32602")          \
    X(TASK_CANCEL_NOT_CANCELLED, "task-cancel-not-cancelled", "TASK-024",                          \
      "answer tasks/cancel with the task still \"working\", cancelling it only afterwards")        \
    X(TASK_LIST_MISSING, "task-list-missing", "TASK-022", "leave every task out of tasks/list")    \
    X(TASK_GET_FOLLOWS_META, "task-get-follows-meta", "TASK-018",                                  \
      "answer tasks/get about the related-task _meta taskId instead of params.taskId")             \
    X(TASK_GET_RELATED_META, "task-get-related-meta", "TASK-019",                                  \
      "put related-task _meta in tasks/get results")                                               \
    X(TASK_STATUS_REGRESS, "task-status-regress", "TASK-012",                                      \
      "after a task's terminal status notification, send another saying it is working")            \
    X(TASKS_CAPABILITY_SHAPE, "tasks-capability-shape", "CAP-SRV-006",                             \
      "declare tasks.list as true instead of an object")                                           \
    X(TASK_PROGRESS_AFTER_END, "task-progress-after-end", "PROG-010",                              \
      "send one more progress notification after a task's work has ended")

#endif
