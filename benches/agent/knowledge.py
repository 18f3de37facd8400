"""The knowledge the support agent gets each turn: a pinned instruction, a stable policy page
(both frozen into the system prompt at the first call) and a small help centre searched with
BM25 (``ctxsieve.kernels.bm25_index``) per user question.
"""

from __future__ import annotations

from typing import Any

from ctxsieve import ContextEngine, RAGSource, StaticSource
from ctxsieve.kernels import bm25_index

PINNED = "Never promise a refund the refund_status tool has not confirmed; name the policy section you applied."
POLICY = (
    "Fernhill support policy, version 7. Section 1, refunds: unused items within 30 days of "
    "delivery, paid to the original card within 5 working days of the return's arrival. "
    "Section 2, damaged or missing items: reported within 14 days, replaced or refunded without "
    "a return. Section 3, shipping: UK orders ship within 2 working days, Europe within 4; a "
    "parcel is late after 7 working days. Section 4, accounts: 5 failed logins lock an account "
    "for 30 minutes; support unlocks it after checking the email address. Section 5, billing "
    "disputes: every invoice of the disputed year is checked before a chargeback is answered."
)
ARTICLES = {
    "late-parcels": "A parcel is late after 7 working days. Check the carrier events first; a parcel "
    "with no event for 3 days is escalated to the carrier.",
    "shipping-times": "Shipping times: UK 2 working days, Europe 4, rest of the world 7 to 12. Trade "
    "customers get next-day shipping on stock items.",
    "returns": "To return an item, the customer prints the label from their account and drops the "
    "parcel at any post office within 30 days.",
    "damaged-items": "Damaged or missing items are refunded or replaced without a return when reported "
    "within 14 days, with a photo of the parcel.",
    "refund-timing": "Refunds go to the original card within 5 working days of the return arriving; "
    "banks may take 3 more days to show it.",
    "account-locked": "An account locks after 5 failed logins for 30 minutes. Support unlocks it after "
    "checking the email address on file.",
    "payment-failures": "When payments fail, check the payments service logs for upstream resets; "
    "an incident is opened after 20 errors in 5 minutes.",
    "invoices": "Invoices are in the account under Orders. Support exports a year of invoices as JSON "
    "for billing disputes and accountants.",
    "chargebacks": "A chargeback is answered within 7 days with the invoice, the carrier events and "
    "the delivery photo.",
    "trade-plan": "Trade plan customers have a named account manager and 60-day payment terms.",
    "warranty": "Tents and stoves have a 2-year warranty; boots 1 year. Wear and tear is not covered.",
    "tickets": "Every contact gets a ticket; a ticket closes 3 days after the last answer unless the customer replies.",
}


class HelpCentre:
    """The retrieval pipeline a ``RAGSource`` queries: BM25 over the articles."""

    def __init__(self, articles: dict[str, str]):
        self.ids = list(articles)
        self.texts = [articles[i] for i in self.ids]
        self.index = bm25_index(self.texts)

    def query(self, q: str, k: int) -> list[dict[str, Any]]:
        return [{"id": self.ids[i], "text": self.texts[i], "score": float(s)} for i, s in self.index.search(q, k)]


def engine(budget: int = 600) -> ContextEngine:
    """The engine the conversation asks once per user turn."""
    return ContextEngine(
        [
            StaticSource(PINNED, pinned=True, name="rules"),
            StaticSource(POLICY, name="policy", kind="knowledge", stability="stable"),
            RAGSource(HelpCentre(ARTICLES), k=3, name="help"),
        ],
        budget=budget,
    )
