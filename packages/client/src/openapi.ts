// Generated from openapi.json by openapi-typescript (npm run openapi -w @fanout/client). Do not edit.

export interface paths {
    "/v1/config": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the tenant configuration (secrets shown as "***") */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @default [] */
                            tools: {
                                name: string;
                                /** @default  */
                                description: string;
                                /**
                                 * @default {
                                 *       "type": "object"
                                 *     }
                                 */
                                parameters: {
                                    [key: string]: unknown;
                                };
                                /** Format: uri */
                                url: string;
                                /**
                                 * @description Safe to retry after an ambiguous failure.
                                 * @default false
                                 */
                                read_only: boolean;
                                timeout_seconds?: number;
                                /** @description Signs tool requests (Standard Webhooks); generated when omitted. */
                                secret?: string;
                            }[];
                            /** @default [] */
                            mcp_servers: {
                                name: string;
                                /** Format: uri */
                                url: string;
                                /** @default {} */
                                headers: {
                                    [key: string]: string;
                                };
                            }[];
                            /** @default {} */
                            agents: {
                                [key: string]: {
                                    /** @default  */
                                    description: string;
                                    system_prompt?: string;
                                    /** @description Globs of tools this agent may call; omitted = all. */
                                    tools?: string[];
                                    model?: string;
                                    /** @description This agent's model's prices, when they differ from `llm.prices`. */
                                    prices?: {
                                        input_per_million: number;
                                        output_per_million: number;
                                    };
                                    /** @default 25 */
                                    max_steps: number;
                                    /** @description This agent's no-progress limit, in place of `limits.subagent_idle_seconds` for its chats. */
                                    idle_seconds?: number;
                                    permission?: {
                                        task?: [
                                            string,
                                            "allow" | "deny"
                                        ][] | {
                                            [key: string]: "allow" | "deny";
                                        };
                                    };
                                };
                            };
                            /** @default null */
                            llm: {
                                /** Format: uri */
                                base_url: string;
                                model: string;
                                api_key?: string;
                                prices?: {
                                    input_per_million: number;
                                    output_per_million: number;
                                };
                            } | null;
                            /** @default null */
                            webhook: {
                                /** Format: uri */
                                url: string;
                                secret?: string;
                                /** @default [] */
                                allowed_callback_origins: string[];
                                /** @default false */
                                include_child_chats: boolean;
                                /** @description Globs over event types the webhook receives (e.g. ["batch.finished", "job.approval_*"]); omitted: every type. The others are still kept and streamed. */
                                events?: string[];
                            } | null;
                            /** @default null */
                            telegram: {
                                bot_token: string;
                                /**
                                 * Format: uri
                                 * @default https://api.telegram.org
                                 */
                                api_base_url: string;
                            } | null;
                            builtins: {
                                http_request: {
                                    /** @default [] */
                                    allowed_origins: string[];
                                };
                            };
                            /**
                             * @description Flow rules (docs/api.md#flow-control): how many matching calls run at once and start per period, per key.
                             * @default []
                             */
                            flow: {
                                name: string;
                                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate); `llm` is every model request of an agent loop. */
                                tools: string[];
                                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                                when?: string;
                                /** @description Matching calls running at once, per key. */
                                concurrency?: number;
                                /** @description Starts per period, per key, spread evenly. */
                                rate?: {
                                    limit: number;
                                    period_seconds: number;
                                    /** @description Starts at once after a quiet spell; default `limit`. */
                                    burst?: number;
                                };
                                /** @description Each distinct value of this field has its own limits; a missing one is the key "". */
                                key?: string;
                                /**
                                 * @default queue
                                 * @enum {string}
                                 */
                                on_limit: "queue" | "reject";
                                /**
                                 * @description Calls waiting per key (at most 10,000); past it a call is refused.
                                 * @default 1000
                                 */
                                max_queued: number;
                            }[];
                            /**
                             * @description Approval rules (docs/api.md#approvals): which calls wait for a person's decision before they leave.
                             * @default []
                             */
                            approvals: {
                                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate). */
                                tools: string[];
                                /** @description Globs over the calling agent's profile; default every agent, at any level. */
                                agents?: string[];
                                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                                when?: string;
                                /**
                                 * @description With no decision by then, the call ends `error` and is not made.
                                 * @default 86400
                                 */
                                timeout_seconds: number;
                                /** @description Ask the MCP client that made the call: a 2026-07-28 tasks client sees `input_required` with an approval form. */
                                ask_mcp_client?: boolean;
                            }[];
                            /**
                             * @description OTLP export of the spans of this tenant's work (docs/api.md#traces); null: none is exported.
                             * @default null
                             */
                            telemetry: {
                                otlp: {
                                    /** Format: uri */
                                    url: string;
                                    /** @default {} */
                                    headers: {
                                        [key: string]: string;
                                    };
                                    /**
                                     * @default http/protobuf
                                     * @enum {string}
                                     */
                                    protocol: "http/protobuf" | "http/json";
                                };
                                /**
                                 * @description Tool arguments and results and model messages on the spans, redacted and cut to 8 KB each.
                                 * @default false
                                 */
                                capture_content: boolean;
                                /**
                                 * @description Share of the traces fanout starts itself that are kept; a caller's sampled traceparent is always followed.
                                 * @default 1
                                 */
                                sample_ratio: number;
                            } | null;
                            limits: {
                                /**
                                 * @description Most tool calls one `parallel` request may start.
                                 * @default 8
                                 */
                                max_calls: number;
                                /** @default 5 */
                                max_parallel_subagents: number;
                                /** @default 20 */
                                max_subagents_per_tree: number;
                                /** @default 2 */
                                max_depth: number;
                                /**
                                 * @default reject
                                 * @enum {string}
                                 */
                                on_subagent_limit: "reject" | "queue";
                                /** @default 20 */
                                max_queued_subagents: number;
                                /**
                                 * @description Pending + running jobs one chat may hold.
                                 * @default 64
                                 */
                                max_active_jobs_per_chat: number;
                                /**
                                 * @description Longest a request waits; below Cloudflare's 100 s idle cutoff.
                                 * @default 90
                                 */
                                max_wait_seconds: number;
                                /**
                                 * @description How long an await waits when `timeout` is omitted.
                                 * @default 300
                                 */
                                default_timeout_seconds: number;
                                /** @default 600 */
                                tool_job_timeout_seconds: number;
                                /** @default 1800 */
                                subordinate_job_timeout_seconds: number;
                                /** @default 3600 */
                                max_job_timeout_seconds: number;
                                /**
                                 * @description A subagent with no progress for this long ends `timeout` (`idle_timeout`); an agent's `idle_seconds` overrides it.
                                 * @default 300
                                 */
                                subagent_idle_seconds: number;
                                /** @description A tool call that reported progress (an MCP tool's notifications) and then none for this long ends `timeout` (`idle_timeout`) before its deadline. */
                                tool_idle_seconds?: number;
                                /** @default null */
                                max_tokens_per_job: number | null;
                                /**
                                 * @description No stored result is longer than 2,000,000 bytes.
                                 * @default 16000
                                 */
                                max_result_chars: number;
                                /**
                                 * @description Stays under SQLite's 2 MB row limit.
                                 * @default 1048576
                                 */
                                max_stored_result_bytes: number;
                                /** @default 1048576 */
                                max_response_bytes: number;
                                /**
                                 * @description At most 640 KiB: a larger body costs more CPU to read than one request may spend.
                                 * @default 262144
                                 */
                                max_body_bytes: number;
                                /** @default 64 */
                                max_job_ids: number;
                                /** @default 604800 */
                                retention_seconds: number;
                                /**
                                 * @description Live streams (WebSockets) the tenant may have open at once.
                                 * @default 100
                                 */
                                max_streams: number;
                                /**
                                 * @description /tool-calls: `tiered` runs side-effecting calls one after another after the rest; `parallel` starts every call of a message at once. A request may say `?order=`.
                                 * @default tiered
                                 * @enum {string}
                                 */
                                tool_calls_order: "tiered" | "parallel";
                                /** @description What the tenant may spend per UTC day or month across every chat (docs/api.md#spending-limits); at the limit, calls and model requests not yet made end `error`. */
                                spend?: {
                                    /**
                                     * @description A UTC day or calendar month.
                                     * @enum {string}
                                     */
                                    period: "day" | "month";
                                    /** @description Dollars, with `llm.prices` set. */
                                    cost_usd?: number;
                                    /** @description Prompt and completion tokens of every model request. */
                                    llm_tokens?: number;
                                    /** @description Model requests of every agent loop. */
                                    llm_calls?: number;
                                    /** @description Tool calls made. */
                                    tool_calls?: number;
                                    /**
                                     * @description Fractions of a limit at which `tenant.spend_alert` is sent, once each per period; and once at the limit.
                                     * @default [
                                     *       0.5,
                                     *       0.8
                                     *     ]
                                     */
                                    alert_at: number[];
                                };
                                /**
                                 * @description What a top-level batch and everything it starts may spend (docs/api.md#budgets); a request may lower it with ?budget=.
                                 * @default {}
                                 */
                                budget: {
                                    /** @description Prompt and completion tokens of every model request. */
                                    llm_tokens?: number;
                                    /** @description Model requests. */
                                    llm_calls?: number;
                                    /** @description Tool calls made. */
                                    tool_calls?: number;
                                    /** @description Subagents started. */
                                    subagents?: number;
                                    /** @description Dollars, with `llm.prices` set. */
                                    cost_usd?: number;
                                };
                            };
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        /** Replace the tenant configuration (omitted keys take defaults) */
        put: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @default [] */
                        tools?: {
                            name: string;
                            /** @default  */
                            description?: string;
                            /**
                             * @default {
                             *       "type": "object"
                             *     }
                             */
                            parameters?: {
                                [key: string]: unknown;
                            };
                            /** Format: uri */
                            url: string;
                            /**
                             * @description Safe to retry after an ambiguous failure.
                             * @default false
                             */
                            read_only?: boolean;
                            timeout_seconds?: number;
                            /** @description Signs tool requests (Standard Webhooks); generated when omitted. */
                            secret?: string;
                        }[];
                        /** @default [] */
                        mcp_servers?: {
                            name: string;
                            /** Format: uri */
                            url: string;
                            /** @default {} */
                            headers?: {
                                [key: string]: string;
                            };
                        }[];
                        /** @default {} */
                        agents?: {
                            [key: string]: {
                                /** @default  */
                                description?: string;
                                system_prompt?: string;
                                /** @description Globs of tools this agent may call; omitted = all. */
                                tools?: string[];
                                model?: string;
                                /** @description This agent's model's prices, when they differ from `llm.prices`. */
                                prices?: {
                                    input_per_million: number;
                                    output_per_million: number;
                                };
                                /** @default 25 */
                                max_steps?: number;
                                /** @description This agent's no-progress limit, in place of `limits.subagent_idle_seconds` for its chats. */
                                idle_seconds?: number;
                                permission?: {
                                    task?: [
                                        string,
                                        "allow" | "deny"
                                    ][] | {
                                        [key: string]: "allow" | "deny";
                                    };
                                };
                            };
                        };
                        /** @default null */
                        llm?: {
                            /** Format: uri */
                            base_url: string;
                            model: string;
                            api_key?: string;
                            prices?: {
                                input_per_million: number;
                                output_per_million: number;
                            };
                        } | null;
                        /** @default null */
                        webhook?: {
                            /** Format: uri */
                            url: string;
                            secret?: string;
                            /** @default [] */
                            allowed_callback_origins?: string[];
                            /** @default false */
                            include_child_chats?: boolean;
                            /** @description Globs over event types the webhook receives (e.g. ["batch.finished", "job.approval_*"]); omitted: every type. The others are still kept and streamed. */
                            events?: string[];
                        } | null;
                        /** @default null */
                        telegram?: {
                            bot_token: string;
                            /**
                             * Format: uri
                             * @default https://api.telegram.org
                             */
                            api_base_url?: string;
                        } | null;
                        /** @default {} */
                        builtins?: {
                            /** @default {} */
                            http_request?: {
                                /** @default [] */
                                allowed_origins?: string[];
                            };
                        };
                        /**
                         * @description Flow rules (docs/api.md#flow-control): how many matching calls run at once and start per period, per key.
                         * @default []
                         */
                        flow?: {
                            name: string;
                            /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate); `llm` is every model request of an agent loop. */
                            tools: string[];
                            /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                            when?: string;
                            /** @description Matching calls running at once, per key. */
                            concurrency?: number;
                            /** @description Starts per period, per key, spread evenly. */
                            rate?: {
                                limit: number;
                                period_seconds: number;
                                /** @description Starts at once after a quiet spell; default `limit`. */
                                burst?: number;
                            };
                            /** @description Each distinct value of this field has its own limits; a missing one is the key "". */
                            key?: string;
                            /**
                             * @default queue
                             * @enum {string}
                             */
                            on_limit?: "queue" | "reject";
                            /**
                             * @description Calls waiting per key (at most 10,000); past it a call is refused.
                             * @default 1000
                             */
                            max_queued?: number;
                        }[];
                        /**
                         * @description Approval rules (docs/api.md#approvals): which calls wait for a person's decision before they leave.
                         * @default []
                         */
                        approvals?: {
                            /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate). */
                            tools: string[];
                            /** @description Globs over the calling agent's profile; default every agent, at any level. */
                            agents?: string[];
                            /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                            when?: string;
                            /**
                             * @description With no decision by then, the call ends `error` and is not made.
                             * @default 86400
                             */
                            timeout_seconds?: number;
                            /** @description Ask the MCP client that made the call: a 2026-07-28 tasks client sees `input_required` with an approval form. */
                            ask_mcp_client?: boolean;
                        }[];
                        /**
                         * @description OTLP export of the spans of this tenant's work (docs/api.md#traces); null: none is exported.
                         * @default null
                         */
                        telemetry?: {
                            otlp: {
                                /** Format: uri */
                                url: string;
                                /** @default {} */
                                headers?: {
                                    [key: string]: string;
                                };
                                /**
                                 * @default http/protobuf
                                 * @enum {string}
                                 */
                                protocol?: "http/protobuf" | "http/json";
                            };
                            /**
                             * @description Tool arguments and results and model messages on the spans, redacted and cut to 8 KB each.
                             * @default false
                             */
                            capture_content?: boolean;
                            /**
                             * @description Share of the traces fanout starts itself that are kept; a caller's sampled traceparent is always followed.
                             * @default 1
                             */
                            sample_ratio?: number;
                        } | null;
                        /** @default {} */
                        limits?: {
                            /**
                             * @description Most tool calls one `parallel` request may start.
                             * @default 8
                             */
                            max_calls?: number;
                            /** @default 5 */
                            max_parallel_subagents?: number;
                            /** @default 20 */
                            max_subagents_per_tree?: number;
                            /** @default 2 */
                            max_depth?: number;
                            /**
                             * @default reject
                             * @enum {string}
                             */
                            on_subagent_limit?: "reject" | "queue";
                            /** @default 20 */
                            max_queued_subagents?: number;
                            /**
                             * @description Pending + running jobs one chat may hold.
                             * @default 64
                             */
                            max_active_jobs_per_chat?: number;
                            /**
                             * @description Longest a request waits; below Cloudflare's 100 s idle cutoff.
                             * @default 90
                             */
                            max_wait_seconds?: number;
                            /**
                             * @description How long an await waits when `timeout` is omitted.
                             * @default 300
                             */
                            default_timeout_seconds?: number;
                            /** @default 600 */
                            tool_job_timeout_seconds?: number;
                            /** @default 1800 */
                            subordinate_job_timeout_seconds?: number;
                            /** @default 3600 */
                            max_job_timeout_seconds?: number;
                            /**
                             * @description A subagent with no progress for this long ends `timeout` (`idle_timeout`); an agent's `idle_seconds` overrides it.
                             * @default 300
                             */
                            subagent_idle_seconds?: number;
                            /** @description A tool call that reported progress (an MCP tool's notifications) and then none for this long ends `timeout` (`idle_timeout`) before its deadline. */
                            tool_idle_seconds?: number;
                            /** @default null */
                            max_tokens_per_job?: number | null;
                            /**
                             * @description No stored result is longer than 2,000,000 bytes.
                             * @default 16000
                             */
                            max_result_chars?: number;
                            /**
                             * @description Stays under SQLite's 2 MB row limit.
                             * @default 1048576
                             */
                            max_stored_result_bytes?: number;
                            /** @default 1048576 */
                            max_response_bytes?: number;
                            /**
                             * @description At most 640 KiB: a larger body costs more CPU to read than one request may spend.
                             * @default 262144
                             */
                            max_body_bytes?: number;
                            /** @default 64 */
                            max_job_ids?: number;
                            /** @default 604800 */
                            retention_seconds?: number;
                            /**
                             * @description Live streams (WebSockets) the tenant may have open at once.
                             * @default 100
                             */
                            max_streams?: number;
                            /**
                             * @description /tool-calls: `tiered` runs side-effecting calls one after another after the rest; `parallel` starts every call of a message at once. A request may say `?order=`.
                             * @default tiered
                             * @enum {string}
                             */
                            tool_calls_order?: "tiered" | "parallel";
                            /** @description What the tenant may spend per UTC day or month across every chat (docs/api.md#spending-limits); at the limit, calls and model requests not yet made end `error`. */
                            spend?: {
                                /**
                                 * @description A UTC day or calendar month.
                                 * @enum {string}
                                 */
                                period: "day" | "month";
                                /** @description Dollars, with `llm.prices` set. */
                                cost_usd?: number;
                                /** @description Prompt and completion tokens of every model request. */
                                llm_tokens?: number;
                                /** @description Model requests of every agent loop. */
                                llm_calls?: number;
                                /** @description Tool calls made. */
                                tool_calls?: number;
                                /**
                                 * @description Fractions of a limit at which `tenant.spend_alert` is sent, once each per period; and once at the limit.
                                 * @default [
                                 *       0.5,
                                 *       0.8
                                 *     ]
                                 */
                                alert_at?: number[];
                            };
                            /**
                             * @description What a top-level batch and everything it starts may spend (docs/api.md#budgets); a request may lower it with ?budget=.
                             * @default {}
                             */
                            budget?: {
                                /** @description Prompt and completion tokens of every model request. */
                                llm_tokens?: number;
                                /** @description Model requests. */
                                llm_calls?: number;
                                /** @description Tool calls made. */
                                tool_calls?: number;
                                /** @description Subagents started. */
                                subagents?: number;
                                /** @description Dollars, with `llm.prices` set. */
                                cost_usd?: number;
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @default [] */
                            tools: {
                                name: string;
                                /** @default  */
                                description: string;
                                /**
                                 * @default {
                                 *       "type": "object"
                                 *     }
                                 */
                                parameters: {
                                    [key: string]: unknown;
                                };
                                /** Format: uri */
                                url: string;
                                /**
                                 * @description Safe to retry after an ambiguous failure.
                                 * @default false
                                 */
                                read_only: boolean;
                                timeout_seconds?: number;
                                /** @description Signs tool requests (Standard Webhooks); generated when omitted. */
                                secret?: string;
                            }[];
                            /** @default [] */
                            mcp_servers: {
                                name: string;
                                /** Format: uri */
                                url: string;
                                /** @default {} */
                                headers: {
                                    [key: string]: string;
                                };
                            }[];
                            /** @default {} */
                            agents: {
                                [key: string]: {
                                    /** @default  */
                                    description: string;
                                    system_prompt?: string;
                                    /** @description Globs of tools this agent may call; omitted = all. */
                                    tools?: string[];
                                    model?: string;
                                    /** @description This agent's model's prices, when they differ from `llm.prices`. */
                                    prices?: {
                                        input_per_million: number;
                                        output_per_million: number;
                                    };
                                    /** @default 25 */
                                    max_steps: number;
                                    /** @description This agent's no-progress limit, in place of `limits.subagent_idle_seconds` for its chats. */
                                    idle_seconds?: number;
                                    permission?: {
                                        task?: [
                                            string,
                                            "allow" | "deny"
                                        ][] | {
                                            [key: string]: "allow" | "deny";
                                        };
                                    };
                                };
                            };
                            /** @default null */
                            llm: {
                                /** Format: uri */
                                base_url: string;
                                model: string;
                                api_key?: string;
                                prices?: {
                                    input_per_million: number;
                                    output_per_million: number;
                                };
                            } | null;
                            /** @default null */
                            webhook: {
                                /** Format: uri */
                                url: string;
                                secret?: string;
                                /** @default [] */
                                allowed_callback_origins: string[];
                                /** @default false */
                                include_child_chats: boolean;
                                /** @description Globs over event types the webhook receives (e.g. ["batch.finished", "job.approval_*"]); omitted: every type. The others are still kept and streamed. */
                                events?: string[];
                            } | null;
                            /** @default null */
                            telegram: {
                                bot_token: string;
                                /**
                                 * Format: uri
                                 * @default https://api.telegram.org
                                 */
                                api_base_url: string;
                            } | null;
                            builtins: {
                                http_request: {
                                    /** @default [] */
                                    allowed_origins: string[];
                                };
                            };
                            /**
                             * @description Flow rules (docs/api.md#flow-control): how many matching calls run at once and start per period, per key.
                             * @default []
                             */
                            flow: {
                                name: string;
                                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate); `llm` is every model request of an agent loop. */
                                tools: string[];
                                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                                when?: string;
                                /** @description Matching calls running at once, per key. */
                                concurrency?: number;
                                /** @description Starts per period, per key, spread evenly. */
                                rate?: {
                                    limit: number;
                                    period_seconds: number;
                                    /** @description Starts at once after a quiet spell; default `limit`. */
                                    burst?: number;
                                };
                                /** @description Each distinct value of this field has its own limits; a missing one is the key "". */
                                key?: string;
                                /**
                                 * @default queue
                                 * @enum {string}
                                 */
                                on_limit: "queue" | "reject";
                                /**
                                 * @description Calls waiting per key (at most 10,000); past it a call is refused.
                                 * @default 1000
                                 */
                                max_queued: number;
                            }[];
                            /**
                             * @description Approval rules (docs/api.md#approvals): which calls wait for a person's decision before they leave.
                             * @default []
                             */
                            approvals: {
                                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate). */
                                tools: string[];
                                /** @description Globs over the calling agent's profile; default every agent, at any level. */
                                agents?: string[];
                                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                                when?: string;
                                /**
                                 * @description With no decision by then, the call ends `error` and is not made.
                                 * @default 86400
                                 */
                                timeout_seconds: number;
                                /** @description Ask the MCP client that made the call: a 2026-07-28 tasks client sees `input_required` with an approval form. */
                                ask_mcp_client?: boolean;
                            }[];
                            /**
                             * @description OTLP export of the spans of this tenant's work (docs/api.md#traces); null: none is exported.
                             * @default null
                             */
                            telemetry: {
                                otlp: {
                                    /** Format: uri */
                                    url: string;
                                    /** @default {} */
                                    headers: {
                                        [key: string]: string;
                                    };
                                    /**
                                     * @default http/protobuf
                                     * @enum {string}
                                     */
                                    protocol: "http/protobuf" | "http/json";
                                };
                                /**
                                 * @description Tool arguments and results and model messages on the spans, redacted and cut to 8 KB each.
                                 * @default false
                                 */
                                capture_content: boolean;
                                /**
                                 * @description Share of the traces fanout starts itself that are kept; a caller's sampled traceparent is always followed.
                                 * @default 1
                                 */
                                sample_ratio: number;
                            } | null;
                            limits: {
                                /**
                                 * @description Most tool calls one `parallel` request may start.
                                 * @default 8
                                 */
                                max_calls: number;
                                /** @default 5 */
                                max_parallel_subagents: number;
                                /** @default 20 */
                                max_subagents_per_tree: number;
                                /** @default 2 */
                                max_depth: number;
                                /**
                                 * @default reject
                                 * @enum {string}
                                 */
                                on_subagent_limit: "reject" | "queue";
                                /** @default 20 */
                                max_queued_subagents: number;
                                /**
                                 * @description Pending + running jobs one chat may hold.
                                 * @default 64
                                 */
                                max_active_jobs_per_chat: number;
                                /**
                                 * @description Longest a request waits; below Cloudflare's 100 s idle cutoff.
                                 * @default 90
                                 */
                                max_wait_seconds: number;
                                /**
                                 * @description How long an await waits when `timeout` is omitted.
                                 * @default 300
                                 */
                                default_timeout_seconds: number;
                                /** @default 600 */
                                tool_job_timeout_seconds: number;
                                /** @default 1800 */
                                subordinate_job_timeout_seconds: number;
                                /** @default 3600 */
                                max_job_timeout_seconds: number;
                                /**
                                 * @description A subagent with no progress for this long ends `timeout` (`idle_timeout`); an agent's `idle_seconds` overrides it.
                                 * @default 300
                                 */
                                subagent_idle_seconds: number;
                                /** @description A tool call that reported progress (an MCP tool's notifications) and then none for this long ends `timeout` (`idle_timeout`) before its deadline. */
                                tool_idle_seconds?: number;
                                /** @default null */
                                max_tokens_per_job: number | null;
                                /**
                                 * @description No stored result is longer than 2,000,000 bytes.
                                 * @default 16000
                                 */
                                max_result_chars: number;
                                /**
                                 * @description Stays under SQLite's 2 MB row limit.
                                 * @default 1048576
                                 */
                                max_stored_result_bytes: number;
                                /** @default 1048576 */
                                max_response_bytes: number;
                                /**
                                 * @description At most 640 KiB: a larger body costs more CPU to read than one request may spend.
                                 * @default 262144
                                 */
                                max_body_bytes: number;
                                /** @default 64 */
                                max_job_ids: number;
                                /** @default 604800 */
                                retention_seconds: number;
                                /**
                                 * @description Live streams (WebSockets) the tenant may have open at once.
                                 * @default 100
                                 */
                                max_streams: number;
                                /**
                                 * @description /tool-calls: `tiered` runs side-effecting calls one after another after the rest; `parallel` starts every call of a message at once. A request may say `?order=`.
                                 * @default tiered
                                 * @enum {string}
                                 */
                                tool_calls_order: "tiered" | "parallel";
                                /** @description What the tenant may spend per UTC day or month across every chat (docs/api.md#spending-limits); at the limit, calls and model requests not yet made end `error`. */
                                spend?: {
                                    /**
                                     * @description A UTC day or calendar month.
                                     * @enum {string}
                                     */
                                    period: "day" | "month";
                                    /** @description Dollars, with `llm.prices` set. */
                                    cost_usd?: number;
                                    /** @description Prompt and completion tokens of every model request. */
                                    llm_tokens?: number;
                                    /** @description Model requests of every agent loop. */
                                    llm_calls?: number;
                                    /** @description Tool calls made. */
                                    tool_calls?: number;
                                    /**
                                     * @description Fractions of a limit at which `tenant.spend_alert` is sent, once each per period; and once at the limit.
                                     * @default [
                                     *       0.5,
                                     *       0.8
                                     *     ]
                                     */
                                    alert_at: number[];
                                };
                                /**
                                 * @description What a top-level batch and everything it starts may spend (docs/api.md#budgets); a request may lower it with ?budget=.
                                 * @default {}
                                 */
                                budget: {
                                    /** @description Prompt and completion tokens of every model request. */
                                    llm_tokens?: number;
                                    /** @description Model requests. */
                                    llm_calls?: number;
                                    /** @description Tool calls made. */
                                    tool_calls?: number;
                                    /** @description Subagents started. */
                                    subagents?: number;
                                    /** @description Dollars, with `llm.prices` set. */
                                    cost_usd?: number;
                                };
                            };
                            /** @description Signing secrets fanout generated in this write, keyed by name (`tools.<name>.secret`, `webhook.secret`): shown only here, so store them. */
                            generated_secrets: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /** Change the named keys of the tenant configuration (JSON Merge Patch, RFC 7396) */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/merge-patch+json": components["schemas"]["ConfigPatch"];
                    "application/json": components["schemas"]["ConfigPatch"];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @default [] */
                            tools: {
                                name: string;
                                /** @default  */
                                description: string;
                                /**
                                 * @default {
                                 *       "type": "object"
                                 *     }
                                 */
                                parameters: {
                                    [key: string]: unknown;
                                };
                                /** Format: uri */
                                url: string;
                                /**
                                 * @description Safe to retry after an ambiguous failure.
                                 * @default false
                                 */
                                read_only: boolean;
                                timeout_seconds?: number;
                                /** @description Signs tool requests (Standard Webhooks); generated when omitted. */
                                secret?: string;
                            }[];
                            /** @default [] */
                            mcp_servers: {
                                name: string;
                                /** Format: uri */
                                url: string;
                                /** @default {} */
                                headers: {
                                    [key: string]: string;
                                };
                            }[];
                            /** @default {} */
                            agents: {
                                [key: string]: {
                                    /** @default  */
                                    description: string;
                                    system_prompt?: string;
                                    /** @description Globs of tools this agent may call; omitted = all. */
                                    tools?: string[];
                                    model?: string;
                                    /** @description This agent's model's prices, when they differ from `llm.prices`. */
                                    prices?: {
                                        input_per_million: number;
                                        output_per_million: number;
                                    };
                                    /** @default 25 */
                                    max_steps: number;
                                    /** @description This agent's no-progress limit, in place of `limits.subagent_idle_seconds` for its chats. */
                                    idle_seconds?: number;
                                    permission?: {
                                        task?: [
                                            string,
                                            "allow" | "deny"
                                        ][] | {
                                            [key: string]: "allow" | "deny";
                                        };
                                    };
                                };
                            };
                            /** @default null */
                            llm: {
                                /** Format: uri */
                                base_url: string;
                                model: string;
                                api_key?: string;
                                prices?: {
                                    input_per_million: number;
                                    output_per_million: number;
                                };
                            } | null;
                            /** @default null */
                            webhook: {
                                /** Format: uri */
                                url: string;
                                secret?: string;
                                /** @default [] */
                                allowed_callback_origins: string[];
                                /** @default false */
                                include_child_chats: boolean;
                                /** @description Globs over event types the webhook receives (e.g. ["batch.finished", "job.approval_*"]); omitted: every type. The others are still kept and streamed. */
                                events?: string[];
                            } | null;
                            /** @default null */
                            telegram: {
                                bot_token: string;
                                /**
                                 * Format: uri
                                 * @default https://api.telegram.org
                                 */
                                api_base_url: string;
                            } | null;
                            builtins: {
                                http_request: {
                                    /** @default [] */
                                    allowed_origins: string[];
                                };
                            };
                            /**
                             * @description Flow rules (docs/api.md#flow-control): how many matching calls run at once and start per period, per key.
                             * @default []
                             */
                            flow: {
                                name: string;
                                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate); `llm` is every model request of an agent loop. */
                                tools: string[];
                                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                                when?: string;
                                /** @description Matching calls running at once, per key. */
                                concurrency?: number;
                                /** @description Starts per period, per key, spread evenly. */
                                rate?: {
                                    limit: number;
                                    period_seconds: number;
                                    /** @description Starts at once after a quiet spell; default `limit`. */
                                    burst?: number;
                                };
                                /** @description Each distinct value of this field has its own limits; a missing one is the key "". */
                                key?: string;
                                /**
                                 * @default queue
                                 * @enum {string}
                                 */
                                on_limit: "queue" | "reject";
                                /**
                                 * @description Calls waiting per key (at most 10,000); past it a call is refused.
                                 * @default 1000
                                 */
                                max_queued: number;
                            }[];
                            /**
                             * @description Approval rules (docs/api.md#approvals): which calls wait for a person's decision before they leave.
                             * @default []
                             */
                            approvals: {
                                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate). */
                                tools: string[];
                                /** @description Globs over the calling agent's profile; default every agent, at any level. */
                                agents?: string[];
                                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                                when?: string;
                                /**
                                 * @description With no decision by then, the call ends `error` and is not made.
                                 * @default 86400
                                 */
                                timeout_seconds: number;
                                /** @description Ask the MCP client that made the call: a 2026-07-28 tasks client sees `input_required` with an approval form. */
                                ask_mcp_client?: boolean;
                            }[];
                            /**
                             * @description OTLP export of the spans of this tenant's work (docs/api.md#traces); null: none is exported.
                             * @default null
                             */
                            telemetry: {
                                otlp: {
                                    /** Format: uri */
                                    url: string;
                                    /** @default {} */
                                    headers: {
                                        [key: string]: string;
                                    };
                                    /**
                                     * @default http/protobuf
                                     * @enum {string}
                                     */
                                    protocol: "http/protobuf" | "http/json";
                                };
                                /**
                                 * @description Tool arguments and results and model messages on the spans, redacted and cut to 8 KB each.
                                 * @default false
                                 */
                                capture_content: boolean;
                                /**
                                 * @description Share of the traces fanout starts itself that are kept; a caller's sampled traceparent is always followed.
                                 * @default 1
                                 */
                                sample_ratio: number;
                            } | null;
                            limits: {
                                /**
                                 * @description Most tool calls one `parallel` request may start.
                                 * @default 8
                                 */
                                max_calls: number;
                                /** @default 5 */
                                max_parallel_subagents: number;
                                /** @default 20 */
                                max_subagents_per_tree: number;
                                /** @default 2 */
                                max_depth: number;
                                /**
                                 * @default reject
                                 * @enum {string}
                                 */
                                on_subagent_limit: "reject" | "queue";
                                /** @default 20 */
                                max_queued_subagents: number;
                                /**
                                 * @description Pending + running jobs one chat may hold.
                                 * @default 64
                                 */
                                max_active_jobs_per_chat: number;
                                /**
                                 * @description Longest a request waits; below Cloudflare's 100 s idle cutoff.
                                 * @default 90
                                 */
                                max_wait_seconds: number;
                                /**
                                 * @description How long an await waits when `timeout` is omitted.
                                 * @default 300
                                 */
                                default_timeout_seconds: number;
                                /** @default 600 */
                                tool_job_timeout_seconds: number;
                                /** @default 1800 */
                                subordinate_job_timeout_seconds: number;
                                /** @default 3600 */
                                max_job_timeout_seconds: number;
                                /**
                                 * @description A subagent with no progress for this long ends `timeout` (`idle_timeout`); an agent's `idle_seconds` overrides it.
                                 * @default 300
                                 */
                                subagent_idle_seconds: number;
                                /** @description A tool call that reported progress (an MCP tool's notifications) and then none for this long ends `timeout` (`idle_timeout`) before its deadline. */
                                tool_idle_seconds?: number;
                                /** @default null */
                                max_tokens_per_job: number | null;
                                /**
                                 * @description No stored result is longer than 2,000,000 bytes.
                                 * @default 16000
                                 */
                                max_result_chars: number;
                                /**
                                 * @description Stays under SQLite's 2 MB row limit.
                                 * @default 1048576
                                 */
                                max_stored_result_bytes: number;
                                /** @default 1048576 */
                                max_response_bytes: number;
                                /**
                                 * @description At most 640 KiB: a larger body costs more CPU to read than one request may spend.
                                 * @default 262144
                                 */
                                max_body_bytes: number;
                                /** @default 64 */
                                max_job_ids: number;
                                /** @default 604800 */
                                retention_seconds: number;
                                /**
                                 * @description Live streams (WebSockets) the tenant may have open at once.
                                 * @default 100
                                 */
                                max_streams: number;
                                /**
                                 * @description /tool-calls: `tiered` runs side-effecting calls one after another after the rest; `parallel` starts every call of a message at once. A request may say `?order=`.
                                 * @default tiered
                                 * @enum {string}
                                 */
                                tool_calls_order: "tiered" | "parallel";
                                /** @description What the tenant may spend per UTC day or month across every chat (docs/api.md#spending-limits); at the limit, calls and model requests not yet made end `error`. */
                                spend?: {
                                    /**
                                     * @description A UTC day or calendar month.
                                     * @enum {string}
                                     */
                                    period: "day" | "month";
                                    /** @description Dollars, with `llm.prices` set. */
                                    cost_usd?: number;
                                    /** @description Prompt and completion tokens of every model request. */
                                    llm_tokens?: number;
                                    /** @description Model requests of every agent loop. */
                                    llm_calls?: number;
                                    /** @description Tool calls made. */
                                    tool_calls?: number;
                                    /**
                                     * @description Fractions of a limit at which `tenant.spend_alert` is sent, once each per period; and once at the limit.
                                     * @default [
                                     *       0.5,
                                     *       0.8
                                     *     ]
                                     */
                                    alert_at: number[];
                                };
                                /**
                                 * @description What a top-level batch and everything it starts may spend (docs/api.md#budgets); a request may lower it with ?budget=.
                                 * @default {}
                                 */
                                budget: {
                                    /** @description Prompt and completion tokens of every model request. */
                                    llm_tokens?: number;
                                    /** @description Model requests. */
                                    llm_calls?: number;
                                    /** @description Tool calls made. */
                                    tool_calls?: number;
                                    /** @description Subagents started. */
                                    subagents?: number;
                                    /** @description Dollars, with `llm.prices` set. */
                                    cost_usd?: number;
                                };
                            };
                            /** @description Signing secrets fanout generated in this write, keyed by name (`tools.<name>.secret`, `webhook.secret`): shown only here, so store them. */
                            generated_secrets: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/chats/{chat_id}/parallel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start, await, collect or cancel parallel jobs (Agent Zero `parallel` tool_args) */
        post: {
            parameters: {
                query?: {
                    agent?: string;
                    callback_url?: string;
                    notify?: string;
                    metadata?: string;
                    budget?: string;
                };
                header?: {
                    "Fanout-Metadata"?: string;
                    traceparent?: string;
                    tracestate?: string;
                };
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Calls to start as jobs (aliases: calls, items), in any accepted shape (Agent Zero, OpenAI, Anthropic, AI SDK, Gemini); a JSON string of the array is accepted. */
                        tool_calls?: ({
                            /** @description Tool to run; `tool:method` sets `tool_args.action`. */
                            tool_name: string;
                            tool_args: {
                                [key: string]: unknown;
                            };
                            /** @description Optional id of the call; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            tool_call_id?: string;
                        } | {
                            /** @description The call's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            id: string;
                            /** @constant */
                            type?: "function";
                            function: {
                                name: string;
                                /** @description JSON text of the arguments. */
                                arguments: string;
                            };
                        } | {
                            /** @constant */
                            type: "tool_use";
                            /** @description The block's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            id: string;
                            name: string;
                            /** @description The arguments: an object, or JSON text of one. */
                            input: unknown;
                        } | {
                            /** @constant */
                            type?: "tool-call";
                            /** @description The call's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            toolCallId: string;
                            toolName: string;
                            /** @description The arguments: an object, or JSON text of one. */
                            input?: unknown;
                            /** @description Older AI SDK versions' name for input. */
                            args?: unknown;
                        } | ({
                            functionCall: {
                                name: string;
                                args?: {
                                    [key: string]: unknown;
                                };
                                /** @description The call's id, when Gemini gives one; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                                id?: string;
                            };
                        } | {
                            function_call: {
                                name: string;
                                args?: {
                                    [key: string]: unknown;
                                };
                                /** @description The call's id, when Gemini gives one; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                                id?: string;
                            };
                        }))[] | string;
                        /** @description Existing jobs to await, collect or cancel. */
                        job_ids?: string | string[];
                        /** @enum {string} */
                        action?: "start" | "background" | "await" | "wait" | "collect" | "cancel";
                        /** @description Wait for the jobs; default true unless action is start, background or collect. */
                        wait?: boolean | string;
                        /** @description Seconds this call may wait (default 300, capped by max_wait_seconds). */
                        timeout?: number | string;
                        /** @description Hard deadline in seconds for each started job. */
                        job_timeout?: number | string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success" | "partial" | "error" | "cancelled" | "running" | "waiting";
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            /** @constant */
                            wait_timeout?: true;
                            instruction?: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        } | {
                            /** @constant */
                            status: "started";
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            instruction: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/batches/{batch_id}/rerun": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run a finished batch's failed part again (default: its retryable failures, plus the jobs named), under today's config and gates; answers the whole batch in call order */
        post: {
            parameters: {
                query?: {
                    agent?: string;
                    callback_url?: string;
                    notify?: string;
                    metadata?: string;
                    budget?: string;
                };
                header?: {
                    "Idempotency-Key"?: string;
                    "Fanout-Metadata"?: string;
                    traceparent?: string;
                    tracestate?: string;
                };
                path: {
                    chat_id: string;
                    batch_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Jobs of the batch to run again beside the default ones (every job that did not succeed and is `retryable`); a side effect whose outcome is unknown runs again only when named. */
                        jobs?: string[];
                        /** @description New arguments for jobs that run again, by job id; the others keep theirs. */
                        tool_args?: {
                            [key: string]: {
                                [key: string]: unknown;
                            };
                        };
                        /**
                         * @description Wait for the rerun's jobs (up to `limits.max_wait_seconds`).
                         * @default true
                         */
                        wait?: boolean;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success" | "partial" | "error" | "cancelled" | "running" | "waiting";
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            /** @constant */
                            wait_timeout?: true;
                            instruction?: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                            /** @description The new batch. */
                            batch_id: string;
                            /** @description The batch it reran. */
                            rerun_of: string;
                        } | {
                            /** @constant */
                            status: "started";
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            instruction: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                            /** @description The new batch. */
                            batch_id: string;
                            /** @description The batch it reran. */
                            rerun_of: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/tool-calls": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run one assistant message's tool calls (OpenAI, Anthropic, AI SDK, Gemini), tiered or all at once (order); answers in call order */
        post: {
            parameters: {
                query?: {
                    agent?: string;
                    callback_url?: string;
                    notify?: string;
                    metadata?: string;
                    budget?: string;
                    order?: string;
                };
                header?: {
                    "Fanout-Metadata"?: string;
                    traceparent?: string;
                    tracestate?: string;
                };
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The tool calls of one assistant message, each with its id. */
                        tool_calls: ({
                            /** @description Tool to run; `tool:method` sets `tool_args.action`. */
                            tool_name: string;
                            tool_args: {
                                [key: string]: unknown;
                            };
                            /** @description Optional id of the call; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            tool_call_id?: string;
                        } | {
                            /** @description The call's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            id: string;
                            /** @constant */
                            type?: "function";
                            function: {
                                name: string;
                                /** @description JSON text of the arguments. */
                                arguments: string;
                            };
                        } | {
                            /** @constant */
                            type: "tool_use";
                            /** @description The block's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            id: string;
                            name: string;
                            /** @description The arguments: an object, or JSON text of one. */
                            input: unknown;
                        } | {
                            /** @constant */
                            type?: "tool-call";
                            /** @description The call's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            toolCallId: string;
                            toolName: string;
                            /** @description The arguments: an object, or JSON text of one. */
                            input?: unknown;
                            /** @description Older AI SDK versions' name for input. */
                            args?: unknown;
                        } | ({
                            functionCall: {
                                name: string;
                                args?: {
                                    [key: string]: unknown;
                                };
                                /** @description The call's id, when Gemini gives one; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                                id?: string;
                            };
                        } | {
                            function_call: {
                                name: string;
                                args?: {
                                    [key: string]: unknown;
                                };
                                /** @description The call's id, when Gemini gives one; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                                id?: string;
                            };
                        }))[];
                        /** @description Seconds this request may wait (capped by max_wait_seconds). */
                        timeout?: number | string;
                        /** @description false: answer at once with each call's job and state (status `started`); the results come in `batch.finished`. */
                        wait?: boolean;
                        /** @description Any JSON up to 64 KiB the bot needs to continue its turn (its conversation so far, the assistant message): kept with the batch and returned as `data.context` on `batch.finished`; never shown to a model or a tool. */
                        context?: unknown;
                    } | ({
                        /** @description Tool to run; `tool:method` sets `tool_args.action`. */
                        tool_name: string;
                        tool_args: {
                            [key: string]: unknown;
                        };
                        /** @description Optional id of the call; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                        tool_call_id?: string;
                    } | {
                        /** @description The call's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                        id: string;
                        /** @constant */
                        type?: "function";
                        function: {
                            name: string;
                            /** @description JSON text of the arguments. */
                            arguments: string;
                        };
                    } | {
                        /** @constant */
                        type: "tool_use";
                        /** @description The block's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                        id: string;
                        name: string;
                        /** @description The arguments: an object, or JSON text of one. */
                        input: unknown;
                    } | {
                        /** @constant */
                        type?: "tool-call";
                        /** @description The call's id; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                        toolCallId: string;
                        toolName: string;
                        /** @description The arguments: an object, or JSON text of one. */
                        input?: unknown;
                        /** @description Older AI SDK versions' name for input. */
                        args?: unknown;
                    } | ({
                        functionCall: {
                            name: string;
                            args?: {
                                [key: string]: unknown;
                            };
                            /** @description The call's id, when Gemini gives one; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            id?: string;
                        };
                    } | {
                        function_call: {
                            name: string;
                            args?: {
                                [key: string]: unknown;
                            };
                            /** @description The call's id, when Gemini gives one; kept as the job's tool_call_id (at most 128 printable characters, else ignored). */
                            id?: string;
                        };
                    }))[];
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /**
                             * @description `started`: the request said `wait: false`; the results come in `batch.finished`.
                             * @enum {string}
                             */
                            status: "success" | "partial" | "error" | "cancelled" | "running" | "waiting" | "started";
                            batch_id: string | null;
                            /** @description One entry per call, in the original order. */
                            results: {
                                tool_call_id: string;
                                name: string;
                                job_id: string | null;
                                /** @description A `parallel` call's jobs: the ones it named, then the ones it started. */
                                job_ids?: string[];
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                /** @description The result text, `Error: <message>`, or a `parallel` call's payload; absent while active. */
                                content?: string;
                                /**
                                 * @description In an event too large to carry it whole: `content` is its first 1,000 characters.
                                 * @constant
                                 */
                                content_truncated?: true;
                                error?: {
                                    code: string;
                                    message: string;
                                } & {
                                    [key: string]: unknown;
                                };
                                /**
                                 * @description A job that ended without success: why (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                            }[];
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/spawn": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start one subagent (spawn_task arguments; wait defaults to false) */
        post: {
            parameters: {
                query?: {
                    agent?: string;
                    callback_url?: string;
                    notify?: string;
                    metadata?: string;
                    budget?: string;
                };
                header?: {
                    "Fanout-Metadata"?: string;
                    traceparent?: string;
                    tracestate?: string;
                };
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the subagent should do, with everything it needs to know. */
                        task: string;
                        /** @description Short label for progress messages (default: the task's first 30 characters). */
                        label?: string;
                        /** @description Subagent type (profile). */
                        agent?: string;
                        /** @description Wait for the result (honoured at /spawn and in agent loops). */
                        wait?: boolean;
                        /**
                         * @description "fork" passes your recent conversation; "fresh" (default) nothing.
                         * @enum {string}
                         */
                        context?: "fresh" | "fork";
                        /** @description Restrict the subagent to these of its profile's tools. */
                        tools?: string[];
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @enum {string} */
                            status: "success" | "partial" | "error" | "cancelled" | "running" | "waiting";
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            /** @constant */
                            wait_timeout?: true;
                            instruction?: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        } | {
                            /** @constant */
                            status: "started";
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            instruction: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/mcp": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** 405: the MCP endpoint is stateless; it has no stream to open */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Method Not Allowed */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        /** fanout as an MCP server (Streamable HTTP, stateless): tools/list, tools/call as jobs, tasks; 2026-07-28 and the handshake versions */
        post: {
            parameters: {
                query?: {
                    agent?: string;
                    metadata?: string;
                    budget?: string;
                };
                header?: {
                    "Fanout-Agent"?: string;
                    "Fanout-Metadata"?: string;
                    "Idempotency-Key"?: string;
                    "MCP-Protocol-Version"?: string;
                    "Mcp-Method"?: string;
                    "Mcp-Name"?: string;
                };
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @constant */
                        jsonrpc: "2.0";
                        /** @description Absent on a notification. */
                        id?: string | number;
                        /** @description server/discover, initialize, ping, tools/list, tools/call, tasks/* */
                        method: string;
                        params?: {
                            [key: string]: unknown;
                        };
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            jsonrpc: "2.0";
                            id: (string | number) | null;
                            result?: {
                                [key: string]: unknown;
                            };
                            error?: {
                                code: number;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        /** 405: the MCP endpoint is stateless; it has no session to end */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Method Not Allowed */
                405: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/tools": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Function definitions and prompts for an agent */
        get: {
            parameters: {
                query?: {
                    agent?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            tools: {
                                /** @constant */
                                type: "function";
                                function: {
                                    name: string;
                                    description: string;
                                    /** @description A JSON Schema of the call's arguments, as OpenAI-style function calling takes it. */
                                    parameters: {
                                        [key: string]: unknown;
                                    };
                                };
                            }[];
                            /** @description `parallel`, `spawn_task`, `call_subordinate` and `orchestration`, rendered for the agent. */
                            prompts: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/flow": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Each flow rule's running and queued calls, its rate's headroom and its busiest keys */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            rules: {
                                name: string;
                                running: number;
                                queued: number;
                                rate?: {
                                    limit: number;
                                    period_seconds: number;
                                    /** @description Starts the rule allows at once now (under a key, the least among its busy keys). */
                                    available: number;
                                };
                                /** @description The 20 busiest keys; a key with nothing running or queued is not listed. */
                                keys: {
                                    key: string;
                                    running: number;
                                    queued: number;
                                }[];
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/telemetry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the tenant's span exports came to: spans exported and dropped, the latest failure */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Spans the tenant's OTLP endpoint accepted. */
                            exported: number;
                            /** @description Spans given up: refused by the endpoint, failed after 3 retries, or dropped for room (10,000 wait at most). */
                            dropped: number;
                            /** @description The latest failure, redacted. */
                            last_error?: string;
                            /** @description When spans were last accepted (ISO 8601). */
                            last_export_at?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's spending under `limits.spend`: this period's and the last 90 days' by day */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The spending limit's period; null without `limits.spend`. */
                            period: ("day" | "month") | null;
                            period_start: string | null;
                            limits: {
                                cost_usd?: number;
                                llm_tokens?: number;
                                llm_calls?: number;
                                tool_calls?: number;
                            } | null;
                            /** @description This period's, across every chat of the tenant. */
                            used: {
                                llm_tokens: number;
                                llm_calls: number;
                                tool_calls: number;
                                /** @description Not counted against a spending limit: 0. */
                                subagents: number;
                                cost_usd: number;
                            };
                            /** @description The last 90 UTC days with spending counted, oldest first; counted while `limits.spend` is set. */
                            by_day: {
                                date: string;
                                used: {
                                    llm_tokens: number;
                                    llm_calls: number;
                                    tool_calls: number;
                                    /** @description Not counted against a spending limit: 0. */
                                    subagents: number;
                                    cost_usd: number;
                                };
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/jobs/{job_id}/approval": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve or deny a call that waits for a person (once; the same decision again is a harmless 200) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                    job_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        decision: "approve" | "deny";
                        /** @description Why; a denied call's error says it. */
                        reason?: string;
                        /** @description Who decided, as the bot knows them (a user name, an id). */
                        by?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            job_id: string;
                            tool_name: string;
                            /** @description The id of the call this job answers, when the call had one. */
                            tool_call_id?: string;
                            /** @enum {string} */
                            state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                            duration_seconds: number;
                            /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                            queue_position?: number;
                            /**
                             * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                             * @enum {string}
                             */
                            waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                            /** @description While waiting for flow: the rule (and key) it waits at. */
                            flow?: {
                                rule: string;
                                key?: string;
                            };
                            /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                            approval_expires_at?: string;
                            context_id?: string;
                            /** @description A rerun's job: the job it ran again. */
                            rerun_of?: string;
                            result?: string;
                            /** @constant */
                            result_truncated?: true;
                            error?: string;
                            /**
                             * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                             * @enum {string}
                             */
                            error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                            /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                            retryable?: boolean;
                            /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                            usage?: {
                                llm_calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                tool_calls: number;
                                subagents: number;
                                /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                cost_usd?: number;
                            };
                            /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                            progress?: {
                                progress: number;
                                total?: number;
                                /** @description At most 500 characters. */
                                message?: string;
                            };
                            /** @constant */
                            wait_timed_out?: true;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The tenant's calls waiting for a decision, or decided, newest first */
        get: {
            parameters: {
                query?: {
                    status?: string;
                    cursor?: string;
                    limit?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            approvals: {
                                chat_id: string;
                                job_id: string;
                                tool_name: string;
                                /** @description The call's arguments; null when they were too long to list (the job's record has them). */
                                tool_args: {
                                    [key: string]: unknown;
                                } | null;
                                /** @description The agent profile that made the call. */
                                agent: string;
                                /**
                                 * @description `cancelled`: the job ended otherwise before anyone decided.
                                 * @enum {string}
                                 */
                                status: "pending" | "approved" | "denied" | "expired" | "cancelled";
                                requested_at: string;
                                expires_at: string;
                                decided_at: string | null;
                                by: string | null;
                                reason: string | null;
                                metadata: {
                                    [key: string]: unknown;
                                } | null;
                            }[];
                            /** @description Pass as `cursor` for the next, older page; null on the last. */
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** With ?status=pending|delivered|failed: the chat's kept events with a webhook target in that state. With Upgrade: websocket: the chat's live stream (?after=<seq>) */
        get: {
            parameters: {
                query?: {
                    status?: string;
                    after?: string;
                    ticket?: string;
                };
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            events: {
                                /** @description The event id: the webhook-id of every attempt, a redelivery's too. */
                                id: string;
                                type: string;
                                seq: number;
                                /** @enum {string} */
                                status: "pending" | "delivered" | "failed";
                                /** @description Attempts in the current schedule (a redelivery starts a fresh one). */
                                attempts: number;
                                /** @description The receiver's HTTP status at the last attempt; null: no answer, or no attempt yet. */
                                last_status: number | null;
                                last_error: string | null;
                                /**
                                 * Format: date-time
                                 * @description Pending: when the next attempt is due.
                                 */
                                next_attempt_at?: string;
                                /**
                                 * Format: date-time
                                 * @description Delivered: when the receiver answered 2xx.
                                 */
                                delivered_at?: string;
                                /**
                                 * Format: date-time
                                 * @description Failed: when delivery gave up.
                                 */
                                failed_at?: string;
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/events/{event_id}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a delivered or failed event again to its own target, or a pending one now: same id, a fresh attempt schedule */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                    event_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Accepted */
                202: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The event id: the webhook-id of every attempt, a redelivery's too. */
                            id: string;
                            type: string;
                            seq: number;
                            /** @enum {string} */
                            status: "pending" | "delivered" | "failed";
                            /** @description Attempts in the current schedule (a redelivery starts a fresh one). */
                            attempts: number;
                            /** @description The receiver's HTTP status at the last attempt; null: no answer, or no attempt yet. */
                            last_status: number | null;
                            last_error: string | null;
                            /**
                             * Format: date-time
                             * @description Pending: when the next attempt is due.
                             */
                            next_attempt_at?: string;
                            /**
                             * Format: date-time
                             * @description Delivered: when the receiver answered 2xx.
                             */
                            delivered_at?: string;
                            /**
                             * Format: date-time
                             * @description Failed: when delivery gave up.
                             */
                            failed_at?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed webhook.test event to webhook.url once, now, and answer what the receiver said */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The receiver's HTTP status; null when none came (no answer in 10 s, a network error, a URL egress refuses). */
                            status: number | null;
                            /** @description What went wrong, as what the same answer would do to real events; absent on a plain 2xx. */
                            error?: string;
                            duration_ms: number;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Upgrade: websocket only: every chat's events, each with a cursor (?after=<cursor>) */
        get: {
            parameters: {
                query?: {
                    after?: string;
                    ticket?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ws-tickets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A single-use, 60 s ticket for opening a stream from a browser (?ticket=) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Limit the ticket to this chat's stream. */
                        chat_id?: string;
                    };
                };
            };
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            ticket: string;
                            /** @constant */
                            expires_in: 60;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List top-level chats */
        get: {
            parameters: {
                query?: {
                    cursor?: string;
                    limit?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Top-level chats in id order, each with its descendants nested. */
                            chats: {
                                chat_id: string;
                                parent_chat_id: string | null;
                                level: number;
                                name: string;
                                created_at: string;
                                last_activity: string;
                                /** @description Oldest first: a chat's newest 20 children at most, and 50 descendants per top-level chat. */
                                children: {
                                    chat_id: string;
                                    parent_chat_id: string | null;
                                    level: number;
                                    name: string;
                                    created_at: string;
                                    last_activity: string;
                                    /** @description Oldest first: a chat's newest 20 children at most, and 50 descendants per top-level chat. */
                                    children: {
                                        chat_id: string;
                                        parent_chat_id: string | null;
                                        level: number;
                                        name: string;
                                        created_at: string;
                                        last_activity: string;
                                        /** @description Oldest first: a chat's newest 20 children at most, and 50 descendants per top-level chat. */
                                        children: {
                                            chat_id: string;
                                            parent_chat_id: string | null;
                                            level: number;
                                            name: string;
                                            created_at: string;
                                            last_activity: string;
                                            /** @description Oldest first: a chat's newest 20 children at most, and 50 descendants per top-level chat. */
                                            children: {
                                                chat_id: string;
                                                parent_chat_id: string | null;
                                                level: number;
                                                name: string;
                                                created_at: string;
                                                last_activity: string;
                                                /** @description Oldest first: a chat's newest 20 children at most, and 50 descendants per top-level chat. */
                                                children: {
                                                    chat_id: string;
                                                    parent_chat_id: string | null;
                                                    level: number;
                                                    name: string;
                                                    created_at: string;
                                                    last_activity: string;
                                                    /** @description Oldest first: a chat's newest 20 children at most, and 50 descendants per top-level chat. */
                                                    children: unknown[];
                                                    /** @description How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all. */
                                                    more_children?: number;
                                                }[];
                                                /** @description How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all. */
                                                more_children?: number;
                                            }[];
                                            /** @description How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all. */
                                            more_children?: number;
                                        }[];
                                        /** @description How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all. */
                                        more_children?: number;
                                    }[];
                                    /** @description How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all. */
                                    more_children?: number;
                                }[];
                                /** @description How many children were left out of `children`; GET /v1/chats/{chat_id} lists them all. */
                                more_children?: number;
                            }[];
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Chat info */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            chat_id: string;
                            parent_chat_id: string | null;
                            level: number;
                            name: string;
                            children: {
                                chat_id: string;
                                name: string;
                                level: number;
                                running_jobs: number;
                                /** @description Of `running_jobs`, those waiting to start (a subagent slot, approval). */
                                waiting_jobs: number;
                            }[];
                            /** @description Its active jobs: running, or waiting to start. */
                            running_jobs: number;
                            /** @description Of `running_jobs`, those not started yet: waiting for approval, flow room, their turn or a slot. */
                            waiting_jobs: number;
                            /** @description The latest of the chat's creation and its kept jobs' acceptance, claim and end (ISO 8601). */
                            last_activity: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a chat and its whole subtree (503 while a part of it cannot be reached yet; the deletion goes on) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Active and uncollected jobs */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/jobs/{job_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A job's full record until purge */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                    job_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            job_id: string;
                            chat_id: string;
                            batch_id: string;
                            index: number;
                            tool_name: string;
                            /** @description The id of the call this job answers; null when the call had none. */
                            tool_call_id: string | null;
                            tool_args: {
                                [key: string]: unknown;
                            };
                            /** @enum {string} */
                            kind: "tool" | "subordinate";
                            /** @enum {string} */
                            state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                            created_at: string;
                            started_at: string | null;
                            completed_at: string | null;
                            attempt: number;
                            deadline_at: string;
                            result: string | null;
                            result_truncated: boolean;
                            /** @description An MCP job's result parts as the server sent them (images and audio with their base64 `data`), while `result` has text and placeholders. Bounded like `result`: a part that did not fit is cut or kept without its payload, marked `truncated: true`. Null for other jobs and until the job ends. */
                            content: ({
                                type: string;
                            } & {
                                [key: string]: unknown;
                            })[] | null;
                            error: string | null;
                            /** @description Why the job did not succeed; null while active and on a success. */
                            error_type: ("tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable") | null;
                            retryable: boolean | null;
                            context_id: string | null;
                            /** @description A rerun's job: the job it ran again; null otherwise. */
                            rerun_of: string | null;
                            /** @description The job's own and its subtree's: a tool call is one once claimed. */
                            usage: {
                                llm_calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                tool_calls: number;
                                subagents: number;
                                /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                cost_usd?: number;
                            };
                            collected_at: string | null;
                            metadata: {
                                [key: string]: unknown;
                            } | null;
                            /** @description Why a pending job has not started yet; null once it has, or when nothing holds it. */
                            waiting_for: ("tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend") | null;
                            /** @description While waiting for flow: the rule (and key) it waits at. */
                            flow: {
                                rule: string;
                                key?: string;
                            } | null;
                            /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                            approval_expires_at: string | null;
                            /** @description What the job waited for before it started, in order: each gate, from when it got there to when it left it (null while it still waits). Empty for a job that never waited. */
                            waited: {
                                /** @enum {string} */
                                for: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                from: string;
                                to: string | null;
                            }[];
                            /** @description A call under an approval rule: the request and its decision; null for any other. */
                            approval: {
                                /** @enum {string} */
                                status: "pending" | "approved" | "denied" | "expired";
                                expires_at: string;
                                decided_at: string | null;
                                by: string | null;
                                reason: string | null;
                            } | null;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/batches/{batch_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A batch as one record until its jobs are purged: its state, its jobs in call order, its usage, metadata, context, what it reran and its trace */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                    batch_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            batch_id: string;
                            /**
                             * @description As a results payload's `status`: `running` while any job is active.
                             * @enum {string}
                             */
                            state: "success" | "partial" | "error" | "cancelled" | "running" | "waiting";
                            /** @description Its jobs in call order (a rerun's carried-over jobs included). */
                            jobs: {
                                job_id: string;
                                tool_name: string;
                                /** @description The id of the call this job answers, when the call had one. */
                                tool_call_id?: string;
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                duration_seconds: number;
                                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                                queue_position?: number;
                                /**
                                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                                 * @enum {string}
                                 */
                                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow?: {
                                    rule: string;
                                    key?: string;
                                };
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at?: string;
                                context_id?: string;
                                /** @description A rerun's job: the job it ran again. */
                                rerun_of?: string;
                                result?: string;
                                /** @constant */
                                result_truncated?: true;
                                error?: string;
                                /**
                                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                                progress?: {
                                    progress: number;
                                    total?: number;
                                    /** @description At most 500 characters. */
                                    message?: string;
                                };
                                /** @constant */
                                wait_timed_out?: true;
                            }[];
                            /** @description The batch's own jobs and their subtrees. */
                            usage: {
                                llm_calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                tool_calls: number;
                                subagents: number;
                                /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                cost_usd?: number;
                            };
                            /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                            metadata?: {
                                [key: string]: unknown;
                            };
                            /** @description The `context` a `/tool-calls` request handed with the batch, as it was given. */
                            context?: unknown;
                            /** @description A `/tool-calls` batch: every call its model made, in call order, under the id it wrote. A call that is one job has its `job_id` and `state` (its outcome is that job in the batch's jobs); a refused or `parallel` call is its whole `/tool-calls` entry, `content` and all. */
                            tool_calls?: {
                                tool_call_id: string;
                                name: string;
                                job_id: string | null;
                                /** @description A `parallel` call's jobs: the ones it named, then the ones it started. */
                                job_ids?: string[];
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                /** @description The result text, `Error: <message>`, or a `parallel` call's payload; absent while active. */
                                content?: string;
                                /**
                                 * @description In an event too large to carry it whole: `content` is its first 1,000 characters.
                                 * @constant
                                 */
                                content_truncated?: true;
                                error?: {
                                    code: string;
                                    message: string;
                                } & {
                                    [key: string]: unknown;
                                };
                                /**
                                 * @description A job that ended without success: why (docs/api.md#why-a-job-failed).
                                 * @enum {string}
                                 */
                                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                                retryable?: boolean;
                            }[];
                            /** @description A rerun's batch: the batch it reran. */
                            rerun_of?: string;
                            /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                            trace_id?: string;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/job-records": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A page of the chat's job records, newest first, without `content` (limit 1-100, default 24; `before`: the previous page's `next_before`) */
        get: {
            parameters: {
                query?: {
                    limit?: string;
                    before?: string;
                };
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            records: {
                                job_id: string;
                                chat_id: string;
                                batch_id: string;
                                index: number;
                                tool_name: string;
                                /** @description The id of the call this job answers; null when the call had none. */
                                tool_call_id: string | null;
                                tool_args: {
                                    [key: string]: unknown;
                                };
                                /** @enum {string} */
                                kind: "tool" | "subordinate";
                                /** @enum {string} */
                                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                                created_at: string;
                                started_at: string | null;
                                completed_at: string | null;
                                attempt: number;
                                deadline_at: string;
                                result: string | null;
                                result_truncated: boolean;
                                error: string | null;
                                /** @description Why the job did not succeed; null while active and on a success. */
                                error_type: ("tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable") | null;
                                retryable: boolean | null;
                                context_id: string | null;
                                /** @description A rerun's job: the job it ran again; null otherwise. */
                                rerun_of: string | null;
                                /** @description The job's own and its subtree's: a tool call is one once claimed. */
                                usage: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                collected_at: string | null;
                                metadata: {
                                    [key: string]: unknown;
                                } | null;
                                /** @description Why a pending job has not started yet; null once it has, or when nothing holds it. */
                                waiting_for: ("tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend") | null;
                                /** @description While waiting for flow: the rule (and key) it waits at. */
                                flow: {
                                    rule: string;
                                    key?: string;
                                } | null;
                                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                                approval_expires_at: string | null;
                                /** @description What the job waited for before it started, in order: each gate, from when it got there to when it left it (null while it still waits). Empty for a job that never waited. */
                                waited: {
                                    /** @enum {string} */
                                    for: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                                    from: string;
                                    to: string | null;
                                }[];
                                /** @description A call under an approval rule: the request and its decision; null for any other. */
                                approval: {
                                    /** @enum {string} */
                                    status: "pending" | "approved" | "denied" | "expired";
                                    expires_at: string;
                                    decided_at: string | null;
                                    by: string | null;
                                    reason: string | null;
                                } | null;
                                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                                trace_id?: string;
                            }[];
                            next_before: string | null;
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/extras": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reminder text of uncollected jobs for the model's context */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/plain": string;
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Log rows, one per job */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            rows: {
                                id: string;
                                job_id: string;
                                type: string;
                                heading: string;
                                kvps: {
                                    [key: string]: unknown;
                                };
                                content: string;
                                created_at: string;
                                updated_at: string;
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/transcript": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A subagent's conversation: each model turn's text and tool calls, with usage */
        get: {
            parameters: {
                query?: {
                    limit?: string;
                };
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            chat_id: string;
                            messages: {
                                role: string;
                                content: string | null;
                                /**
                                 * @description Cut at 10,000 characters; the model had it whole.
                                 * @constant
                                 */
                                content_truncated?: true;
                                tool_calls?: {
                                    id: string;
                                    name: string;
                                    arguments: string;
                                }[];
                                tool_call_id?: string;
                                /** @description A model turn's: what its request took. */
                                usage?: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                                at: string;
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/chats/{chat_id}/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What the chat and its subtree took in the last 30 days, and by day */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    chat_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description OK */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            chat_id: string;
                            /** @description The chat's own work: its model requests, its tool calls, the subagents it started. */
                            chat: {
                                llm_calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                tool_calls: number;
                                subagents: number;
                                /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                cost_usd?: number;
                            };
                            /** @description That and everything its subagents did, however deep. */
                            subtree: {
                                llm_calls: number;
                                prompt_tokens: number;
                                completion_tokens: number;
                                tool_calls: number;
                                subagents: number;
                                /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                cost_usd?: number;
                            };
                            /** @description The subtree's usage by day, oldest first; days without any are left out. */
                            by_day: {
                                /** @description A UTC day, YYYY-MM-DD. */
                                date: string;
                                usage: {
                                    llm_calls: number;
                                    prompt_tokens: number;
                                    completion_tokens: number;
                                    tool_calls: number;
                                    subagents: number;
                                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                                    cost_usd?: number;
                                };
                            }[];
                        };
                    };
                };
                /** @description Error */
                default: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @constant */
                            status: "error";
                            error: {
                                code: string;
                                message: string;
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    event: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** An event, POSTed to webhook.url (or a request's callback_url), signed with Standard Webhooks headers */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["Event"];
                };
            };
            responses: {
                /** @description Any 2xx acknowledges the event; 408/429/5xx are retried; 410 disables the webhook */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    test: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A webhook.test event, POSTed to webhook.url once by POST /v1/webhook/test, signed like every event */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["WebhookTestEvent"];
                };
            };
            responses: {
                /** @description Any 2xx: the receiver works; the answer's status is shown to the caller */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content?: never;
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        Event: {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "chat.created";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                name: string;
                level: number;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "chat.updated";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                name: string;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.started";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                batch_id: string;
                tool_name: string;
                tool_call_id?: string;
                context_id?: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.finished";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                job_id: string;
                tool_name: string;
                /** @description The id of the call this job answers, when the call had one. */
                tool_call_id?: string;
                /** @enum {string} */
                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                duration_seconds: number;
                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                queue_position?: number;
                /**
                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                 * @enum {string}
                 */
                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                /** @description While waiting for flow: the rule (and key) it waits at. */
                flow?: {
                    rule: string;
                    key?: string;
                };
                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                approval_expires_at?: string;
                context_id?: string;
                /** @description A rerun's job: the job it ran again. */
                rerun_of?: string;
                result?: string;
                /** @constant */
                result_truncated?: true;
                error?: string;
                /**
                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                 * @enum {string}
                 */
                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                retryable?: boolean;
                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                usage?: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                };
                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                progress?: {
                    progress: number;
                    total?: number;
                    /** @description At most 500 characters. */
                    message?: string;
                };
                /** @constant */
                wait_timed_out?: true;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.progress";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                batch_id: string;
                tool_name: string;
                progress: {
                    progress: number;
                    total?: number;
                    /** @description At most 500 characters. */
                    message?: string;
                };
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "batch.finished";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                /** @description A rerun's batch: the batch it reran; its results are the whole batch, carried-over jobs included. */
                rerun_of?: string;
                results: {
                    /** @enum {string} */
                    status: "success" | "partial" | "error" | "cancelled" | "running" | "waiting";
                    jobs: {
                        job_id: string;
                        tool_name: string;
                        /** @description The id of the call this job answers, when the call had one. */
                        tool_call_id?: string;
                        /** @enum {string} */
                        state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                        duration_seconds: number;
                        /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                        queue_position?: number;
                        /**
                         * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                         * @enum {string}
                         */
                        waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                        /** @description While waiting for flow: the rule (and key) it waits at. */
                        flow?: {
                            rule: string;
                            key?: string;
                        };
                        /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                        approval_expires_at?: string;
                        context_id?: string;
                        /** @description A rerun's job: the job it ran again. */
                        rerun_of?: string;
                        result?: string;
                        /** @constant */
                        result_truncated?: true;
                        error?: string;
                        /**
                         * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                         * @enum {string}
                         */
                        error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                        /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                        retryable?: boolean;
                        /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                        usage?: {
                            llm_calls: number;
                            prompt_tokens: number;
                            completion_tokens: number;
                            tool_calls: number;
                            subagents: number;
                            /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                            cost_usd?: number;
                        };
                        /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                        progress?: {
                            progress: number;
                            total?: number;
                            /** @description At most 500 characters. */
                            message?: string;
                        };
                        /** @constant */
                        wait_timed_out?: true;
                    }[];
                    /** @constant */
                    wait_timeout?: true;
                    instruction?: string;
                    /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                    trace_id?: string;
                };
                /** @description The batch's jobs and their subtrees (events kept from before it was added lack it). */
                usage?: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                };
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The `context` a `/tool-calls` request handed with the batch, as it was given. */
                context?: unknown;
                /** @description A `/tool-calls` batch: every call its model made, in call order, under the id it wrote. A call that is one job has its `job_id` and `state` (its outcome is that job in the batch's jobs); a refused or `parallel` call is its whole `/tool-calls` entry, `content` and all. */
                tool_calls?: {
                    tool_call_id: string;
                    name: string;
                    job_id: string | null;
                    /** @description A `parallel` call's jobs: the ones it named, then the ones it started. */
                    job_ids?: string[];
                    /** @enum {string} */
                    state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                    /** @description The result text, `Error: <message>`, or a `parallel` call's payload; absent while active. */
                    content?: string;
                    /**
                     * @description In an event too large to carry it whole: `content` is its first 1,000 characters.
                     * @constant
                     */
                    content_truncated?: true;
                    error?: {
                        code: string;
                        message: string;
                    } & {
                        [key: string]: unknown;
                    };
                    /**
                     * @description A job that ended without success: why (docs/api.md#why-a-job-failed).
                     * @enum {string}
                     */
                    error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                    /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                    retryable?: boolean;
                }[];
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "subagent.started";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                tool_call_id?: string;
                context_id: string;
                agent: string;
                label: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "subagent.finish";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                tool_call_id?: string;
                context_id: string;
                agent: string;
                label: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @enum {string} */
                status: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                result?: string | null;
                /** @constant */
                result_truncated?: true;
                error?: string | null;
                usage: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                } | null;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "chat.idle";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.approval_requested";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                job_id: string;
                tool_name: string;
                /** @description The id of the call this job answers, when the call had one. */
                tool_call_id?: string;
                /** @enum {string} */
                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                duration_seconds: number;
                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                queue_position?: number;
                /**
                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                 * @enum {string}
                 */
                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                /** @description While waiting for flow: the rule (and key) it waits at. */
                flow?: {
                    rule: string;
                    key?: string;
                };
                approval_expires_at: string;
                context_id?: string;
                /** @description A rerun's job: the job it ran again. */
                rerun_of?: string;
                result?: string;
                /** @constant */
                result_truncated?: true;
                error?: string;
                /**
                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                 * @enum {string}
                 */
                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                retryable?: boolean;
                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                usage?: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                };
                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                progress?: {
                    progress: number;
                    total?: number;
                    /** @description At most 500 characters. */
                    message?: string;
                };
                /** @constant */
                wait_timed_out?: true;
                tool_args: {
                    [key: string]: unknown;
                };
                /** @description The agent profile that made the call. */
                agent: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "batch.budget_exhausted";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                /** @enum {string} */
                field: "llm_tokens" | "llm_calls" | "tool_calls" | "subagents" | "cost_usd";
                /** @description What was spent of `field` when the budget was reached, not the batch's total: see `in_flight`. */
                used: number;
                limit: number;
                /** @description Model requests let go before the budget was reached and not answered yet: their tokens and cost come on top of `used`, and are in the batch's `usage` on `batch.finished` (events kept from before it was added lack it). */
                in_flight?: number;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.approval_decided";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                batch_id: string;
                tool_name: string;
                tool_call_id?: string;
                /** @enum {string} */
                decision: "approve" | "deny" | "expired";
                by: string | null;
                reason: string | null;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "tenant.spend_alert";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                /** @enum {string} */
                field: "cost_usd" | "llm_tokens" | "llm_calls" | "tool_calls";
                /** @description What the tenant spent of `field` this period when the threshold was crossed. */
                used: number;
                limit: number;
                /** @enum {string} */
                period: "day" | "month";
                /** @description The fraction of the limit crossed (`limits.spend.alert_at`); 1 when the limit is reached. */
                threshold: number;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        };
        TenantStreamEvent: ({
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "chat.created";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                name: string;
                level: number;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "chat.updated";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                name: string;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.started";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                batch_id: string;
                tool_name: string;
                tool_call_id?: string;
                context_id?: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.finished";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                job_id: string;
                tool_name: string;
                /** @description The id of the call this job answers, when the call had one. */
                tool_call_id?: string;
                /** @enum {string} */
                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                duration_seconds: number;
                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                queue_position?: number;
                /**
                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                 * @enum {string}
                 */
                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                /** @description While waiting for flow: the rule (and key) it waits at. */
                flow?: {
                    rule: string;
                    key?: string;
                };
                /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                approval_expires_at?: string;
                context_id?: string;
                /** @description A rerun's job: the job it ran again. */
                rerun_of?: string;
                result?: string;
                /** @constant */
                result_truncated?: true;
                error?: string;
                /**
                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                 * @enum {string}
                 */
                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                retryable?: boolean;
                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                usage?: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                };
                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                progress?: {
                    progress: number;
                    total?: number;
                    /** @description At most 500 characters. */
                    message?: string;
                };
                /** @constant */
                wait_timed_out?: true;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.progress";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                batch_id: string;
                tool_name: string;
                progress: {
                    progress: number;
                    total?: number;
                    /** @description At most 500 characters. */
                    message?: string;
                };
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "batch.finished";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                /** @description A rerun's batch: the batch it reran; its results are the whole batch, carried-over jobs included. */
                rerun_of?: string;
                results: {
                    /** @enum {string} */
                    status: "success" | "partial" | "error" | "cancelled" | "running" | "waiting";
                    jobs: {
                        job_id: string;
                        tool_name: string;
                        /** @description The id of the call this job answers, when the call had one. */
                        tool_call_id?: string;
                        /** @enum {string} */
                        state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                        duration_seconds: number;
                        /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                        queue_position?: number;
                        /**
                         * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                         * @enum {string}
                         */
                        waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                        /** @description While waiting for flow: the rule (and key) it waits at. */
                        flow?: {
                            rule: string;
                            key?: string;
                        };
                        /** @description While a person has still to approve the call: when it ends, not made, without a decision. */
                        approval_expires_at?: string;
                        context_id?: string;
                        /** @description A rerun's job: the job it ran again. */
                        rerun_of?: string;
                        result?: string;
                        /** @constant */
                        result_truncated?: true;
                        error?: string;
                        /**
                         * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                         * @enum {string}
                         */
                        error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                        /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                        retryable?: boolean;
                        /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                        usage?: {
                            llm_calls: number;
                            prompt_tokens: number;
                            completion_tokens: number;
                            tool_calls: number;
                            subagents: number;
                            /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                            cost_usd?: number;
                        };
                        /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                        progress?: {
                            progress: number;
                            total?: number;
                            /** @description At most 500 characters. */
                            message?: string;
                        };
                        /** @constant */
                        wait_timed_out?: true;
                    }[];
                    /** @constant */
                    wait_timeout?: true;
                    instruction?: string;
                    /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                    trace_id?: string;
                };
                /** @description The batch's jobs and their subtrees (events kept from before it was added lack it). */
                usage?: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                };
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The `context` a `/tool-calls` request handed with the batch, as it was given. */
                context?: unknown;
                /** @description A `/tool-calls` batch: every call its model made, in call order, under the id it wrote. A call that is one job has its `job_id` and `state` (its outcome is that job in the batch's jobs); a refused or `parallel` call is its whole `/tool-calls` entry, `content` and all. */
                tool_calls?: {
                    tool_call_id: string;
                    name: string;
                    job_id: string | null;
                    /** @description A `parallel` call's jobs: the ones it named, then the ones it started. */
                    job_ids?: string[];
                    /** @enum {string} */
                    state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                    /** @description The result text, `Error: <message>`, or a `parallel` call's payload; absent while active. */
                    content?: string;
                    /**
                     * @description In an event too large to carry it whole: `content` is its first 1,000 characters.
                     * @constant
                     */
                    content_truncated?: true;
                    error?: {
                        code: string;
                        message: string;
                    } & {
                        [key: string]: unknown;
                    };
                    /**
                     * @description A job that ended without success: why (docs/api.md#why-a-job-failed).
                     * @enum {string}
                     */
                    error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                    /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                    retryable?: boolean;
                }[];
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "subagent.started";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                tool_call_id?: string;
                context_id: string;
                agent: string;
                label: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "subagent.finish";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                tool_call_id?: string;
                context_id: string;
                agent: string;
                label: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @enum {string} */
                status: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                result?: string | null;
                /** @constant */
                result_truncated?: true;
                error?: string | null;
                usage: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                } | null;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "chat.idle";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.approval_requested";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                job_id: string;
                tool_name: string;
                /** @description The id of the call this job answers, when the call had one. */
                tool_call_id?: string;
                /** @enum {string} */
                state: "pending" | "running" | "success" | "error" | "cancelled" | "timeout";
                duration_seconds: number;
                /** @description While waiting for a subagent slot: its place in the chat's queue (1 = next). */
                queue_position?: number;
                /**
                 * @description Why a pending job has not started yet: its sequential tier's turn or a subagent slot, a person's approval, room under a flow rule, or its share of the batch's budget (gates a job passes in that order).
                 * @enum {string}
                 */
                waiting_for?: "tier" | "subagent_slot" | "approval" | "flow" | "budget" | "spend";
                /** @description While waiting for flow: the rule (and key) it waits at. */
                flow?: {
                    rule: string;
                    key?: string;
                };
                approval_expires_at: string;
                context_id?: string;
                /** @description A rerun's job: the job it ran again. */
                rerun_of?: string;
                result?: string;
                /** @constant */
                result_truncated?: true;
                error?: string;
                /**
                 * @description Why the job did not succeed: one of a closed list (docs/api.md#why-a-job-failed).
                 * @enum {string}
                 */
                error_type?: "tool_error" | "http_status" | "timeout" | "idle_timeout" | "outcome_unknown" | "cancelled" | "denied" | "approval_expired" | "budget_exhausted" | "flow_rejected" | "invalid_arguments" | "mcp_error" | "llm_error" | "max_steps" | "unavailable";
                /** @description Whether running the call again is safe and may help: only a read-only call after a timeout, a 408, 429 or 5xx, or a network error. */
                retryable?: boolean;
                /** @description A subordinate's: its subtree's model requests, tokens, tool calls and subagents. */
                usage?: {
                    llm_calls: number;
                    prompt_tokens: number;
                    completion_tokens: number;
                    tool_calls: number;
                    subagents: number;
                    /** @description With `llm.prices` (or the agent's `prices`) set: dollars, to 6 decimals. */
                    cost_usd?: number;
                };
                /** @description The last progress a running MCP tool reported (written at most once a second); absent once the job ends. */
                progress?: {
                    progress: number;
                    total?: number;
                    /** @description At most 500 characters. */
                    message?: string;
                };
                /** @constant */
                wait_timed_out?: true;
                tool_args: {
                    [key: string]: unknown;
                };
                /** @description The agent profile that made the call. */
                agent: string;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "batch.budget_exhausted";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                batch_id: string;
                /** @enum {string} */
                field: "llm_tokens" | "llm_calls" | "tool_calls" | "subagents" | "cost_usd";
                /** @description What was spent of `field` when the budget was reached, not the batch's total: see `in_flight`. */
                used: number;
                limit: number;
                /** @description Model requests let go before the budget was reached and not answered yet: their tokens and cost come on top of `used`, and are in the batch's `usage` on `batch.finished` (events kept from before it was added lack it). */
                in_flight?: number;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "job.approval_decided";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                job_id: string;
                batch_id: string;
                tool_name: string;
                tool_call_id?: string;
                /** @enum {string} */
                decision: "approve" | "deny" | "expired";
                by: string | null;
                reason: string | null;
                /** @description The request metadata the batch was started with (`?metadata=` or the Fanout-Metadata header), inherited by subordinates' jobs. */
                metadata?: {
                    [key: string]: unknown;
                };
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        } | {
            /** @description evt_…; also the webhook-id header of a delivery. */
            id: string;
            /** @constant */
            type: "tenant.spend_alert";
            timestamp: string;
            data: {
                tenant: string;
                chat_id: string;
                parent_chat_id: string | null;
                root_chat_id: string;
                /** @description Increases per chat: order events by it, since retries can reorder deliveries. */
                seq: number;
                /**
                 * @description Result texts were left out to keep the event under 256 KiB: await or read the jobs.
                 * @constant
                 */
                truncated?: true;
                /** @enum {string} */
                field: "cost_usd" | "llm_tokens" | "llm_calls" | "tool_calls";
                /** @description What the tenant spent of `field` this period when the threshold was crossed. */
                used: number;
                limit: number;
                /** @enum {string} */
                period: "day" | "month";
                /** @description The fraction of the limit crossed (`limits.spend.alert_at`); 1 when the limit is reached. */
                threshold: number;
                /** @description The W3C trace the batch's spans belong to; present only when its trace is kept (docs/api.md#traces). */
                trace_id?: string;
            } & {
                [key: string]: unknown;
            };
        }) & {
            cursor: number;
        };
        CursorExpired: {
            /** @constant */
            type: "cursor.expired";
            oldest: number;
        };
        WebhookTestEvent: {
            id: string;
            /** @constant */
            type: "webhook.test";
            timestamp: string;
            data: {
                tenant: string;
            };
        };
        /** @description A JSON Merge Patch (RFC 7396) of the configuration: named keys change, null removes a key (it takes its default), arrays replace whole. */
        ConfigPatch: {
            tools?: {
                name: string;
                /** @default  */
                description: string;
                /**
                 * @default {
                 *       "type": "object"
                 *     }
                 */
                parameters: {
                    [key: string]: unknown;
                };
                /** Format: uri */
                url: string;
                /**
                 * @description Safe to retry after an ambiguous failure.
                 * @default false
                 */
                read_only: boolean;
                timeout_seconds?: number;
                /** @description Signs tool requests (Standard Webhooks); generated when omitted. */
                secret?: string;
            }[] | null;
            mcp_servers?: {
                name: string;
                /** Format: uri */
                url: string;
                /** @default {} */
                headers: {
                    [key: string]: string;
                };
            }[] | null;
            agents?: {
                [key: string]: {
                    description?: string | null;
                    system_prompt?: string | null;
                    tools?: string[] | null;
                    model?: string | null;
                    prices?: {
                        input_per_million?: number | null;
                        output_per_million?: number | null;
                    } | null;
                    max_steps?: number | null;
                    idle_seconds?: number | null;
                    permission?: {
                        task?: ([
                            string,
                            "allow" | "deny"
                        ][] | {
                            [key: string]: "allow" | "deny";
                        }) | null;
                    } | null;
                } | null;
            } | null;
            llm?: {
                base_url?: string | null;
                model?: string | null;
                api_key?: string | null;
                prices?: {
                    input_per_million?: number | null;
                    output_per_million?: number | null;
                } | null;
            } | null;
            webhook?: {
                url?: string | null;
                secret?: string | null;
                allowed_callback_origins?: string[] | null;
                include_child_chats?: boolean | null;
                events?: string[] | null;
            } | null;
            telegram?: {
                bot_token?: string | null;
                api_base_url?: string | null;
            } | null;
            builtins?: {
                http_request?: {
                    allowed_origins?: string[] | null;
                } | null;
            } | null;
            flow?: {
                name: string;
                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate); `llm` is every model request of an agent loop. */
                tools: string[];
                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                when?: string;
                /** @description Matching calls running at once, per key. */
                concurrency?: number;
                /** @description Starts per period, per key, spread evenly. */
                rate?: {
                    limit: number;
                    period_seconds: number;
                    /** @description Starts at once after a quiet spell; default `limit`. */
                    burst?: number;
                };
                /** @description Each distinct value of this field has its own limits; a missing one is the key "". */
                key?: string;
                /**
                 * @default queue
                 * @enum {string}
                 */
                on_limit: "queue" | "reject";
                /**
                 * @description Calls waiting per key (at most 10,000); past it a call is refused.
                 * @default 1000
                 */
                max_queued: number;
            }[] | null;
            approvals?: {
                /** @description Globs over the name a call runs as (tenant and MCP tools, http_request, spawn_task, call_subordinate). */
                tools: string[];
                /** @description Globs over the calling agent's profile; default every agent, at any level. */
                agents?: string[];
                /** @description A CEL expression over `args`, `metadata`, `agent` and `tool`: the rule applies only to calls it is true for. One that cannot be evaluated counts as true. */
                when?: string;
                /**
                 * @description With no decision by then, the call ends `error` and is not made.
                 * @default 86400
                 */
                timeout_seconds: number;
                /** @description Ask the MCP client that made the call: a 2026-07-28 tasks client sees `input_required` with an approval form. */
                ask_mcp_client?: boolean;
            }[] | null;
            telemetry?: {
                otlp?: {
                    url?: string | null;
                    headers?: {
                        [key: string]: string | null;
                    } | null;
                    protocol?: ("http/protobuf" | "http/json") | null;
                } | null;
                capture_content?: boolean | null;
                sample_ratio?: number | null;
            } | null;
            limits?: {
                max_calls?: number | null;
                max_parallel_subagents?: number | null;
                max_subagents_per_tree?: number | null;
                max_depth?: number | null;
                on_subagent_limit?: ("reject" | "queue") | null;
                max_queued_subagents?: number | null;
                max_active_jobs_per_chat?: number | null;
                max_wait_seconds?: number | null;
                default_timeout_seconds?: number | null;
                tool_job_timeout_seconds?: number | null;
                subordinate_job_timeout_seconds?: number | null;
                max_job_timeout_seconds?: number | null;
                subagent_idle_seconds?: number | null;
                tool_idle_seconds?: number | null;
                max_tokens_per_job?: number | null;
                max_result_chars?: number | null;
                max_stored_result_bytes?: number | null;
                max_response_bytes?: number | null;
                max_body_bytes?: number | null;
                max_job_ids?: number | null;
                retention_seconds?: number | null;
                max_streams?: number | null;
                tool_calls_order?: ("tiered" | "parallel") | null;
                spend?: {
                    period?: ("day" | "month") | null;
                    cost_usd?: number | null;
                    llm_tokens?: number | null;
                    llm_calls?: number | null;
                    tool_calls?: number | null;
                    alert_at?: number[] | null;
                } | null;
                budget?: {
                    llm_tokens?: number | null;
                    llm_calls?: number | null;
                    tool_calls?: number | null;
                    subagents?: number | null;
                    cost_usd?: number | null;
                } | null;
            } | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
