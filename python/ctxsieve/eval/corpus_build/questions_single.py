"""Questions asked once, each its own one-turn session: unanswerable questions that sound
answerable (a code that does not exist, a number no page gives, a feature next to a documented
one), paraphrases with little vocabulary in common with their page, and questions asked in one
language and answered only by a page in another. Written by hand for the eval."""

from __future__ import annotations

from ctxsieve.eval.corpus_build.questions_hard import QL

SINGLES: list[QL] = [
    (
        "unanswerable",
        "What does E-4219 mean?",
        [],
        ["err-e4217", "err-e4218"],
        "The knowledge base has no article on E-4219; the neighbouring codes are E-4217 and E-4218.",
        "en",
    ),
    (
        "unanswerable",
        "How long do you keep the photos the kiosk takes when people clock in?",
        [],
        ["err-e6033", "pol-retention-2025", "blog-kiosk-photos"],
        "The knowledge base does not say how long clock-in photos are kept.",
        "en",
    ),
    (
        "unanswerable",
        "Is there a rate limit on the webhooks you send to us?",
        [],
        ["howto-webhooks", "err-e4295", "pol-ratelimits-2026"],
        "The knowledge base does not say; it only documents limits on requests to the API.",
        "en",
    ),
    (
        "unanswerable",
        "How many geofences can one location have?",
        [],
        ["howto-geofence"],
        "The knowledge base does not say; it describes one circle per location with a radius of 50-1000 m.",
        "en",
    ),
    (
        "unanswerable",
        "What happens to a swap request if the manager never answers it?",
        [],
        ["howto-shift-swap"],
        "The knowledge base does not say.",
        "en",
    ),
    (
        "paraphrase",
        "Our bank keeps refusing the yearly charge from you.",
        ["err-e2104"],
        ["err-e2119"],
        "Update the card in Billing > Payment method (it is retried within an hour), or ask the bank to allow "
        "charges from Tessel Ltd, which bills from Ireland.",
        "en",
    ),
    (
        "paraphrase",
        "The tax number for our company gets rejected every time I save the billing details.",
        ["err-e2119"],
        ["err-e2104"],
        "Type the VAT number without spaces and with your billing country's prefix; if VIES is down, save "
        "without it and add it later.",
        "en",
    ),
    (
        "changed_policy",
        "A former employee wants to be forgotten. Is her data really wiped, and how long does it take?",
        ["pol-deletion-2025"],
        ["pol-deletion-2024"],
        "Her employer archives her and chooses Erase personal data; requests sent to privacy@ are done in 10 "
        "business days. Payroll records the law requires are kept with her name replaced by an identifier.",
        "en",
    ),
    (
        "changed_policy",
        "Is anyone around at 3 a.m. on a Sunday if we're on the middle plan?",
        ["pol-support-2026"],
        ["pol-support-2024", "pol-support-partner"],
        "No: Business has live chat from Monday 00:00 to Friday 24:00 UTC; round-the-clock help is Enterprise.",
        "en",
    ),
    (
        "changed_policy",
        "We dropped to a cheaper tier. When do the features we paid for stop working?",
        ["pol-downgrades-2025"],
        ["pol-downgrades-2024"],
        "At the end of the current billing period; their data is kept read-only for 60 days after that.",
        "en",
    ),
    (
        "multi_doc",
        "Someone took over a colleague's shift through a swap and it pushed them into overtime. Who had to "
        "sign off on what?",
        ["howto-shift-swap", "pol-overtime-2025"],
        ["pol-overtime-2024"],
        "A swap that creates overtime always needs a manager, and overtime must be approved before the shift "
        "starts (emergency cover is flagged within 24 hours).",
        "en",
    ),
    (
        "multi_doc",
        "We're leaving Tessel. How do we take everything with us, and how long after deleting is it really gone?",
        ["howto-export-data", "pol-retention-2025"],
        ["pol-retention-2024", "pol-retention-health"],
        "Download Settings > Data > Full export first. A deleted workspace is kept 30 days, purged on day 31, "
        "and backups expire 35 days after they are taken: nothing survives past 66 days.",
        "en",
    ),
    (
        "paraphrase",
        "Compramos Tessel a través de una gestoría, ¿quién nos devuelve el dinero si nos damos de baja?",
        ["pol-reembolsos-socios-es"],
        ["pol-reembolsos-2025-es", "pol-reembolsos-2024-es"],
        "La gestoría (el socio): factura y reembolsa según sus propias condiciones; Tessel no puede hacerlo "
        "directamente.",
        "es",
    ),
    (
        "paraphrase",
        "¿Cuántos días de prueba le dan a una universidad?",
        ["pol-trial-education"],
        ["pol-trial-2025", "pol-trial-2024"],
        "60 días del plan Business, sin posibilidad de ampliarlos.",
        "es",
    ),
    (
        "changed_policy",
        "Nos han cobrado un recargo por pagar tarde una factura de Tessel, ¿es normal?",
        ["pol-invoices-2025"],
        ["pol-invoices-2024", "faq-billing"],
        "Sí: una factura con más de 15 días de retraso genera un recargo del 1,5 % al mes.",
        "es",
    ),
    (
        "paraphrase",
        "O aplicativo pede para atualizar e não deixa fazer mais nada.",
        ["err-e5002"],
        [],
        "Versões do app com mais de 18 meses param de funcionar: atualize pela App Store ou Google Play.",
        "pt",
    ),
    (
        "paraphrase",
        "Alguém pode me dizer como peço folga para o dia do meu casamento pelo app?",
        ["howto-ferias-pt"],
        [],
        "Em Folgas > Novo pedido escolha a data e o tipo de ausência; o gerente recebe o pedido na hora.",
        "pt",
    ),
    (
        "unanswerable",
        "Dá para pagar a assinatura com Pix ou boleto?",
        [],
        ["faq-billing", "err-e2104-pt"],
        "A base de conhecimento não diz.",
        "pt",
    ),
    (
        "paraphrase",
        "Wie beantrage ich über die App ein paar freie Tage?",
        ["howto-urlaub-de"],
        [],
        "Unter Abwesenheit > Neuer Antrag die Tage und die Art wählen; die Führungskraft bekommt ihn sofort.",
        "de",
    ),
    (
        "paraphrase",
        "Wie prüfe ich, ob ein Webhook-Request wirklich von Tessel kommt? Gibt es da eine Signature?",
        ["howto-webhooks"],
        ["err-e4295"],
        "Jede Zustellung ist mit dem Endpoint-Secret im Header Tessel-Signature signiert; prüfen Sie die "
        "Signatur, bevor Sie der Payload trauen.",
        "de+en",
    ),
]
