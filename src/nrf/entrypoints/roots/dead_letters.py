"""`nrf dlq`'s root: drain the dead-letter queue, or rerun the quotes a bundle refused.

It opens no bundle, so its emails go out unlabelled (the job root labels a job's).
"""

from __future__ import annotations

from dependency_injector import providers

from nrf.adapters.environment.settings import WorkerSettings
from nrf.adapters.job_queue.job_inbox import ReadingJobInbox
from nrf.domain.email_fields import NotifySettings
from nrf.entrypoints.roots import builders
from nrf.entrypoints.roots.core import Core, build
from nrf.service_layer.drain_dead_letters import DrainDeadLetters
from nrf.service_layer.job_end import JobEnd
from nrf.service_layer.notifications import NotificationLedger
from nrf.service_layer.rerun_refused import RerunRefusedQuotes


class DeadLetterRoot(Core):
    """The dead-letter path: its own inbox and ledger over the core's store and notifier."""

    dead_letter_queue = providers.Singleton(
        builders.queue, client=Core.sqs_client, url=None, name=Core.config.dlq_name
    )
    dead_letter_inbox = providers.Singleton(ReadingJobInbox, queue=dead_letter_queue)
    delivery = builders.delivery_provider(
        Core.notifier, Core.ops_records, Core.clock, Core.sleeper, Core.config
    )
    dead_letter_ledger = providers.Singleton(
        NotificationLedger,
        store=Core.result_store,
        notifier=delivery,
        settings=providers.Factory(
            NotifySettings,
            results_base_url=Core.config.results_base_url,
            support_email=Core.config.support_email,
        ),
    )
    dead_letter_end = providers.Singleton(
        JobEnd,
        store=Core.result_store,
        ledger=dead_letter_ledger,
        decider=Core.outcome_decider,
        clock=Core.clock,
    )
    drain_dead_letters = providers.Factory(
        DrainDeadLetters,
        dlq=dead_letter_inbox,
        store=Core.result_store,
        end=dead_letter_end,
        clock=Core.clock,
    )
    rerun_refused_quotes = providers.Factory(
        RerunRefusedQuotes, store=Core.result_store, files=Core.result_files, queue=Core.job_queue
    )


def build_dead_letter_root(settings: WorkerSettings | None = None) -> DeadLetterRoot:
    """The root of one `nrf dlq` run."""
    return build(DeadLetterRoot, settings=settings)
