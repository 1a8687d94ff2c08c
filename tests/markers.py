"""Which tests are slow, need PostgreSQL, drive a terminal or start processes: the marks
tests/conftest.py gives them at collection, kept here in one place rather than on each test.

The marks (registered in pyproject.toml, where `--strict-markers` refuses any other):

- `slow`: takes more than about 2 s alone. Left out of a run without options; `--all` runs
  it. Found by measuring: `python -m pytest --all --durations=60`.
- `postgres`: needs the PostgreSQL server (`ZERDA_TEST_POSTGRES_URL`, or a throwaway one the
  suite starts). Given by what the test uses (`POSTGRES_FIXTURES`, `STORE_PARAMETERS`).
- `pty`: drives a real terminal, through pexpect or tmux.
- `processes`: starts processes of zerda or Python (the command end to end, kill and race
  tests, a served or summarizing program) rather than calling zerda in the test's process.
  Left out of a run without options too; every `pty` test is one.

A table names a test by its function (every parametrization of it) or by its full name
with the parameters (`test_x[postgres]`, that one alone); "*" is every test of the module.
Modules are named by their path under tests/. A name here that its module no longer
defines stops the run (`stale`), so a renamed test cannot lose its marks unnoticed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).resolve().parent
# What a run without options leaves out (`--all` or any `-m` puts it back): the rest, the
# fast selection, takes a minute on 2 cores; the processes alone took three more.
LEFT_OUT_BY_DEFAULT = frozenset({"slow", "processes"})
EVERY = "*"

# A test using one of these fixtures (itself or through another fixture) needs the server.
POSTGRES_FIXTURES = frozenset(
    {
        "postgres_admin",  # tests/conformance/conftest.py: postgres_url, shared_postgres, pg
        "own_server",  # a throwaway server of the module's own
        "restartable",
    }
)
# Fixtures (or parameters) choosing the store: a test run with one of them "postgres"
# needs the server (the conformance suites' `kind`, tests/test_mcp.py's `store`,
# tests/test_serve.py's `server`).
STORE_PARAMETERS = frozenset({"kind", "store", "server"})

# Module-scoped fixtures that start a process once for their module: every test using one
# starts it when it runs alone. "module::fixture".
PROCESS_FIXTURES = frozenset(
    {
        "test_serve.py::server",  # `zerda serve`, driven by the zep-python client
        "test_importers_llm.py::logs",  # the installed llm writes the logs.db
    }
)


def _table(entries: Mapping[str, tuple[str, ...]]) -> Mapping[str, frozenset[str]]:
    return {module: frozenset(names) for module, names in entries.items()}


# Measured one at a time on 2 cores (over 2 s), and in two whole runs beside other work.
SLOW = _table(
    {
        "conformance/test_cli_manage.py": (
            "test_sessions_filters_sorts_and_cuts[postgres]",
            "test_show_and_export_keep_the_messages_in_range[postgres]",
            "test_title_set_print_and_clear[postgres]",
        ),
        "conformance/test_cli_search.py": ("test_filters[postgres]",),
        "conformance/test_cli_stores.py": (
            "test_copy_is_lossless_and_idempotent",
            "test_every_command_works_on_the_chosen_store",
        ),
        "conformance/test_conformance_concurrency.py": (
            "test_sixteen_processes_of_two_hundred_turns",
        ),
        "conformance/test_conformance_differential.py": ("test_every_store_answers_alike",),
        "conformance/test_conformance_faults.py": (
            "test_a_server_restarted_mid_run_loses_no_acknowledged_turn",
        ),
        "test_archive_index.py": (
            "test_a_build_killed_half_way_leaves_nothing_wrong",
            "test_sixteen_writers_and_readers_never_corrupt_it",
        ),
        "test_bench.py": ("test_quick_run_writes_every_section",),
        "test_chat_summarizer.py": ("test_ctrl_c_cancels_a_hanging_summary_and_keeps_the_turn",),
        "test_backends.py": ("test_openai_timeouts_before_and_during_the_reply",),
        "test_chat_turns.py": ("test_show_and_stats_models_say_where_replies_came_from",),
        "test_cli_e2e.py": (
            "test_fifty_megabytes_from_stdin_are_refused_in_one_line_and_nothing_is_written",
            "test_ten_megabyte_message_from_stdin_round_trips",
        ),
        "test_cli_export_stream.py": ("test_export_does_not_hold_all_messages",),
        "test_cli_fuzz.py": ("test_no_crash_for_any_input",),
        "test_cli_import_streaming.py": (
            "test_a_big_export_imports_back_byte_for_byte",
            "test_a_pipe_as_the_file_is_read_once_and_spooled",
        ),
        "test_doctor.py": ("test_checking_totals_keeps_memory_flat_whatever_waits_for_a_count",),
        "test_entities.py": ("test_a_megabyte_of_text_is_no_catastrophe",),
        "test_fidelity_model.py": (
            "test_zerda_context_carries_the_system_prompt_and_sends_no_none",
        ),
        "test_flat_reads.py": ("test_search_memory_does_not_grow_with_the_hits",),
        "test_importers_memory.py": ("test_a_20_mb_export_parses_in_bounded_memory",),
        "test_langchain_processes.py": ("test_eight_processes_lose_no_message",),
        "test_langchain_roundtrip.py": ("test_generated_messages_round_trip_exactly",),
        "test_memory_family.py": (
            "test_threads_lose_nothing[ConversationTokenBufferMemory]",
            "test_threads_lose_nothing[ConversationSummaryBufferMemory]",
        ),
        "test_repl_pty.py": (
            "test_llm_echo_as_a_command_backend_keeps_its_json_lines",
            "test_openai_streams_in_the_repl_and_a_server_error_keeps_it_alive",
        ),
        "test_serve.py": (
            "test_without_a_key_on_loopback_with_workers_and_sigterm_finishes_a_request",
        ),
        "test_store_faults.py": (
            "test_eight_processes_write_one_session",
            "test_sigkill_mid_stream_loses_no_acknowledged_turn",
        ),
        "test_store_hardening.py": ("test_the_command_shows_and_counts_none_of_a_killed_import",),
        "test_store_streaming_writes.py": (
            "test_a_rewrite_writes_while_it_reads",
            "test_a_source_failing_midway_leaves_the_session_as_it_was",
        ),
        "test_store_tally.py": ("test_racing_writers_and_counting_readers_keep_totals_exact",),
        "test_summarizers.py": (
            "test_extractive_keeps_planted_facts_in_a_long_conversation[1000]",
            "test_extractive_stays_within_its_bound[40-1000]",
            "test_extractive_stays_within_its_bound[40-5000]",
            "test_extractive_stays_within_its_bound[512-1000]",
            "test_extractive_stays_within_its_bound[512-5000]",
        ),
        "test_summary_memory.py": (
            "test_summary_memory_holds_no_turns_and_a_bounded_summary[5000]",
        ),
    }
)

# pexpect.spawn or tmux, seen starting.
PTY = _table(
    {
        "conformance/test_cli_stores.py": ("test_copy_shows_progress_on_a_terminal",),
        "test_bench.py": ("test_quick_run_writes_every_section",),
        "test_browse_pty.py": (
            "test_rename_title_fork_and_delete_from_the_keyboard",
            "test_stored_control_characters_never_reach_the_terminal",
            "test_type_to_search_open_a_transcript_and_go_back",
        ),
        "test_chat_summarizer.py": ("test_ctrl_c_cancels_a_hanging_summary_and_keeps_the_turn",),
        "test_cli_pty.py": ("*",),
        "test_repl_pty.py": (
            "test_a_command_that_does_not_exist_is_refused_at_the_start",
            "test_a_reply_cut_off_mid_stream_is_not_recorded_and_retry_sends_a_failed_message_again",
            "test_a_three_line_reply_is_shown_on_three_lines",
            "test_a_truncated_reply_is_said_and_marked",
            "test_ctrl_c_during_a_slow_reply_records_nothing_and_the_repl_goes_on",
            "test_edit_and_ctrl_x_ctrl_e_write_the_message_in_the_editor",
            "test_jsonl_or_a_piped_stdout_on_a_terminal_is_a_one_line_error",
            "test_leaving_a_new_chat_without_a_turn_says_no_session_was_made",
            "test_llm_echo_as_a_command_backend_keeps_its_json_lines",
            "test_manual_turns_stats_undo_and_the_file_holds_what_was_shown",
            "test_openai_streams_in_the_repl_and_a_server_error_keeps_it_alive",
        ),
        "test_terminal_injection.py": (
            "test_a_message_time_at_the_end_of_the_calendar_is_shown",
            "test_a_role_holding_escapes_never_reaches_the_terminal",
            "test_a_session_file_named_with_escapes_is_listed_inert",
            "test_a_tally_time_that_is_not_iso_is_not_trusted",
            "test_session_facts_holding_escapes_are_shown_inert_by_rich",
            "test_tally_times_holding_escapes_are_unknown_on_a_terminal",
        ),
    }
)

# A process of zerda or Python seen starting, by the test or a fixture of its own.
PROCESSES = _table(
    {
        "conformance/test_cli_manage.py": ("*",),
        "conformance/test_cli_search.py": ("*",),
        "conformance/test_cli_stores.py": ("*",),
        "conformance/test_conformance_concurrency.py": ("*",),
        "conformance/test_conformance_doctor.py": ("test_zerda_doctor_on_the_server",),
        "conformance/test_conformance_faults.py": (
            "test_a_client_killed_inside_a_transaction_leaves_no_trace",
            "test_a_dead_server_url_in_a_subprocess_is_one_line",
            "test_a_server_restarted_mid_run_loses_no_acknowledged_turn",
            "test_writers_killed_at_any_moment_leave_whole_turns",
        ),
        "conformance/test_postgres_store.py": (
            "test_import_zerda_needs_no_psycopg",
            "test_init_applies_each_migration_once_for_racing_processes",
        ),
        "test_archive_index.py": (
            "test_a_build_killed_half_way_leaves_nothing_wrong",
            "test_sixteen_writers_and_readers_never_corrupt_it",
        ),
        "test_backend_secrets.py": (
            "test_a_command_printing_the_key_from_its_environment_is_redacted",
            "test_zerda_chat_piped_never_shows_or_stores_the_key",
        ),
        "test_backends.py": (
            "test_closing_a_reply_early_ends_the_program",
            "test_command_failure_is_one_line_with_its_last_stderr_line",
            "test_command_gets_json_context_and_its_stdout_streams_back",
            "test_command_sees_session_id",
            "test_command_text_format_gets_role_lines",
            "test_command_that_ignores_stdin_still_answers",
        ),
        "test_bench.py": ("test_quick_run_writes_every_section",),
        "test_browse_pty.py": ("*",),
        "test_chat_summarizer.py": ("*",),
        "test_chat_turns.py": (
            "test_a_piped_reply_is_stopped_at_the_size_limit",
            "test_a_program_killed_mid_reply_records_nothing",
            "test_a_streamed_reply_is_stopped_at_the_size_limit",
            "test_every_reply_records_backend_model_finish_reason_latency_and_usage",
            "test_show_and_stats_models_say_where_replies_came_from",
        ),
        "test_cli.py": (
            "test_a_reader_that_stops_early_is_no_error",
            "test_commands_load_secrets_only_when_a_chat_session_id_is_made",
        ),
        "test_cli_e2e.py": ("*",),
        "test_cli_export_stream.py": ("test_export_does_not_hold_all_messages",),
        "test_cli_import_streaming.py": ("*",),
        "test_cli_lenient.py": ("*",),
        "test_cli_pty.py": ("*",),
        "test_cli_time_options.py": ("*",),
        "test_clients.py": (
            "test_a_command_reply_carries_its_provenance",
            "test_import_zerda_loads_no_client_and_the_package_loads_each_client_on_use",
        ),
        "test_docs.py": ("test_cli_reference_is_current",),
        "test_doctor.py": (
            "test_a_temp_file_of_a_rewrite_in_progress_is_left",
            "test_bad_arguments_change_nothing",
            "test_every_finding_at_once_one_line_each",
            "test_repair_keeps_every_readable_message_and_saves_damaged_lines",
        ),
        "test_entities.py": (
            "test_a_megabyte_of_text_is_no_catastrophe",
            "test_deterministic_across_hash_seeds",
        ),
        "test_entities_cli.py": ("*",),
        "test_fidelity_model.py": (
            "test_zerda_chat_sends_stored_tool_calls_to_the_server",
            "test_zerda_context_carries_the_system_prompt_and_sends_no_none",
        ),
        "test_fidelity_roundtrip.py": (
            "test_a_raw_session_file_imports_without_its_file_fields",
            "test_add_keeps_any_role",
            "test_an_import_that_cannot_be_stored_leaves_no_session",
            "test_an_openai_transcript_comes_back_exactly",
            "test_export_import_export_is_lossless",
            "test_importing_the_same_file_twice_adds_nothing",
            "test_keys_of_an_openai_item_zerda_also_uses_come_back",
            "test_roles_and_their_types_are_kept_on_every_path",
        ),
        "test_flat_reads.py": (
            "test_a_session_asked_for_by_name_must_exist",
            "test_a_session_with_only_an_unfinished_first_write_is_not_listed",
            "test_a_summary_context_is_the_bound_memory_and_writes_nothing",
            "test_numbering_a_damaged_line_far_in_keeps_memory_flat",
            "test_search_memory_does_not_grow_with_the_hits",
        ),
        "test_format_v1.py": ("test_it_grows_in_place_and_compacts_to_version_2",),
        "test_import.py": ("*",),
        "test_importers_aichat.py": ("test_zerda_import_from_aichat",),
        "test_importers_cli.py": ("*",),
        "test_importers_langchain.py": ("test_zerda_import_from_langchain",),
        "test_importers_llm.py": (
            "test_an_older_conversation_llm_went_on_with_is_one_session",
            "test_zerda_import_from_llm",
        ),
        "test_importers_memory.py": ("test_a_20_mb_export_parses_in_bounded_memory",),
        "test_importers_sgpt.py": ("test_zerda_import_from_sgpt",),
        "test_importers_zip.py": ("test_the_command_refuses_a_hostile_zip_in_one_line",),
        "test_langchain_history.py": (
            "test_import_zerda_imports_no_langchain",
            "test_without_langchain_the_integration_says_what_to_install",
        ),
        "test_langchain_processes.py": ("test_eight_processes_lose_no_message",),
        "test_mcp.py": (
            "test_every_request_read_before_stdin_closes_is_answered",
            "test_the_end_of_input_waits_for_no_request_that_gets_no_answer",
            "test_stdout_carries_the_protocol_alone",
            "test_the_command_serves_over_stdio",
        ),
        "test_memory_summary.py": ("test_default_summarizer_is_deterministic_and_offline",),
        "test_public_surface.py": ("test_opening_a_file_store_loads_nothing_of_postgresql",),
        "test_ranking.py": (
            "test_a_damaged_session_elsewhere_does_not_stop_a_ranked_search",
            "test_a_limit_too_large_for_any_store_is_one_line",
            "test_each_hit_has_its_own_score_when_uuids_repeat",
        ),
        "test_readme.py": ("test_readme_example_runs",),
        "test_repl.py": (
            "test_retry_killed_at_any_step_keeps_the_old_turn_or_the_new_one",
            "test_retry_replaces_the_last_reply_only_when_the_new_one_is_complete",
        ),
        "test_repl_pty.py": ("*",),
        "test_search.py": ("test_two_process_split_finds_the_same",),
        "test_serve.py": (
            "test_without_a_key_on_loopback_with_workers_and_sigterm_finishes_a_request",
        ),
        "test_startup.py": ("test_the_quick_path_loads_only_what_it_needs",),
        "test_stats_honest.py": (
            "test_a_hand_edited_tally_is_not_carried_forward",
            "test_a_sealed_tally_that_does_not_hold_together_is_not_trusted",
            "test_a_write_after_damage_carries_no_tally",
            "test_stats_give_what_show_reads",
            "test_stats_refuse_what_show_refuses",
        ),
        "test_store_faults.py": (
            "test_eight_processes_write_one_session",
            "test_full_disk_raises_and_keeps_earlier_content",
            "test_private_modes_in_a_fresh_process_with_umask_zero",
            "test_rewrite_killed_at_any_step_leaves_old_or_new",
            "test_sigkill_mid_stream_loses_no_acknowledged_turn",
            "test_stale_temp_files_are_cleaned_by_the_next_rewrite",
        ),
        "test_store_hard_export.py": ("test_the_next_export_removes_a_killed_exports_temp",),
        "test_store_hardening.py": (
            "test_a_hard_link_at_an_existing_sessions_lock_is_refused",
            "test_a_killed_first_write_leaves_no_session",
            "test_a_reader_waiting_on_a_delete_leaves_no_lock_file",
            "test_a_repair_killed_after_its_cut_leaves_no_half_turn",
            "test_a_repair_killed_at_its_second_ftruncate_leaves_no_half_turn",
            "test_a_session_deleted_before_it_is_opened_is_not_found",
            "test_a_write_in_progress_is_not_seen",
            "test_every_directory_made_is_private_under_umask_0",
            "test_library_reads_see_none_of_a_killed_import",
            "test_the_command_shows_and_counts_none_of_a_killed_import",
        ),
        "test_store_replace.py": (
            "test_killed_at_any_step_the_file_holds_the_old_turn_or_the_new_one",
        ),
        "test_store_review.py": ("test_racing_creators_each_leave_their_facts",),
        "test_store_streaming_writes.py": (
            "test_the_command_on_a_stored_lone_surrogate_is_one_error_line",
        ),
        "test_store_tally.py": ("test_racing_writers_and_counting_readers_keep_totals_exact",),
        "test_store_unfinished_write.py": ("test_a_write_cut_short_by_death_is_removed_whole",),
        "test_summarize_cli.py": (
            "test_a_failing_command_stores_nothing",
            "test_summarize_with_a_command",
            "test_the_installed_command_summarizes",
        ),
        "test_summarizers.py": ("test_extractive_is_deterministic_and_offline",),
        "test_summarizers_model.py": (
            "test_a_failing_command_keeps_the_old_summary",
            "test_command_summarizer_is_bounded",
            "test_command_summarizer_runs_the_program_per_batch",
            "test_command_summarizer_text_format",
            "test_the_command_gets_the_request_as_json",
        ),
        "test_summary_memory.py": ("test_a_model_summarizer_failure_is_its_client_error",),
        "test_terminal_injection.py": ("*",),
        "test_tokens.py": (
            "test_encoding_without_offline_file_falls_back_without_network",
            "test_exact_counts_offline_in_a_fresh_process",
            "test_the_probe_sees_a_connection",
        ),
    }
)


def module_name(item: pytest.Item) -> str:
    """The item's module as the tables name it: its path under tests/."""
    try:
        return item.path.resolve().relative_to(TESTS).as_posix()
    except ValueError:
        return item.path.name


def _named(table: Mapping[str, frozenset[str]], module: str, item: pytest.Item) -> bool:
    names = table.get(module, frozenset())
    original = getattr(item, "originalname", item.name)
    return EVERY in names or item.name in names or original in names


def marks_for(item: pytest.Item) -> set[str]:
    """The marks of `item` by the tables above."""
    module = module_name(item)
    found = {
        mark
        for mark, table in (("slow", SLOW), ("pty", PTY), ("processes", PROCESSES))
        if _named(table, module, item)
    }
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & POSTGRES_FIXTURES:
        found.add("postgres")
    callspec = getattr(item, "callspec", None)
    if callspec is not None and any(
        callspec.params.get(name) == "postgres" for name in STORE_PARAMETERS
    ):
        found.add("postgres")
    if any(f"{module}::{name}" in PROCESS_FIXTURES for name in fixtures):
        found.add("processes")
    return found


def stale(module: str, defined: ModuleType) -> list[str]:
    """The names the tables give for `module` that it does not define."""
    names = [
        name.partition("[")[0]
        for table in (SLOW, PTY, PROCESSES)
        for name in table.get(module, frozenset())
        if name != EVERY
    ]
    names += [
        entry.partition("::")[2] for entry in PROCESS_FIXTURES if entry.partition("::")[0] == module
    ]
    return sorted({name for name in names if not hasattr(defined, name)})
