# entrypoint.d scripts also set the environment the workload then runs with.
export NGC_ENTRYPOINT_ENV=set-by-entrypoint
