// Generated from src/core/api/job-states.ts (npm run openapi -w @fanout/client). Do not edit.

/** A job's states, in lifecycle order: `active`, not ended yet; `failed`, ended without the call's answer. */
export const JOB_STATES = {
  "pending": {
    "active": true,
    "failed": false
  },
  "running": {
    "active": true,
    "failed": false
  },
  "success": {
    "active": false,
    "failed": false
  },
  "error": {
    "active": false,
    "failed": true
  },
  "cancelled": {
    "active": false,
    "failed": true
  },
  "timeout": {
    "active": false,
    "failed": true
  }
} as const;

export type JobState = keyof typeof JOB_STATES;
