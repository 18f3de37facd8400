"""Near-duplicates: pages that read almost like the answer to a common question and are not.

* Variant policies: copies of a current policy for a narrower audience (partner-billed
  workspaces, Enterprise Dedicated, Tessel for Healthcare, schools) with a few numbers changed.
  They are current and correct for their audience, so they answer the questions asked by that
  audience and are distractors for everyone else.
* FAQ summaries: short pages that name the topic of a policy and point to it without its
  specifics (no window, no number), as help-centre FAQs often do. They are never the answer.

Written by hand for the eval."""

from __future__ import annotations

from ctxsieve.eval.corpus_build.policies import Policy

VARIANTS: list[Policy] = [
    (
        "pol-refunds-partner",
        "en",
        "current",
        "2025-10-01",
        None,
        ["billing", "refunds", "partners"],
        "Refunds for subscriptions bought through a partner",
        "If a Tessel partner (a reseller or payroll bureau) sold you your subscription, the partner bills you "
        "and refunds you under its own terms; Tessel cannot refund a partner-billed workspace directly.\n\n"
        "Partners can return unused annual seats to Tessel within 14 days of the order. After that the "
        "partner decides whether to refund the remaining months. Ask your partner, not Tessel support.",
    ),
    (
        "pol-ratelimits-dedicated",
        "en",
        "current",
        "2026-03-01",
        None,
        ["api", "rate-limits", "enterprise"],
        "API rate limits on Enterprise Dedicated",
        "Workspaces on Enterprise Dedicated run on a cluster of their own, so the shared limits do not apply. "
        "Each API token may send 1,200 requests per minute with bursts of up to 100 requests in one second, "
        "and bulk endpoints count as 5 requests each.\n\n"
        "Over the limit the API answers HTTP 429 with E-4290 and Retry-After, as on the shared cluster.",
    ),
    (
        "pol-retention-health",
        "en",
        "current",
        "2025-06-01",
        None,
        ["privacy", "retention", "healthcare"],
        "Data retention for Tessel for Healthcare",
        "Workspaces on Tessel for Healthcare (clinics and care homes that signed the health data addendum) "
        "are kept for 90 days after deletion, because the addendum requires it; then they are purged. "
        "Encrypted backups expire after 35 days. Audit log entries are kept for 10 years.",
    ),
    (
        "pol-trial-education",
        "en",
        "current",
        "2025-08-01",
        None,
        ["billing", "trial", "education"],
        "Free trial for schools and universities",
        "Schools, colleges and universities that sign up with an address on their institution's domain get "
        "a 60-day trial of the Business plan, timed to cover a whole term's planning. This trial cannot be "
        "extended. At its end the workspace becomes read-only for 30 days unless a subscription is started.",
    ),
    (
        "pol-support-partner",
        "en",
        "current",
        "2026-01-10",
        None,
        ["support", "partners"],
        "Support for partner-managed workspaces",
        "If a partner manages your workspace, the partner gives first-line support in its own hours and "
        "languages. Tessel answers the partner, not the workspace, within one business day; priority-1 "
        "incidents reported by a partner get a first response within 2 hours around the clock.",
    ),
    (
        "pol-reembolsos-socios-es",
        "es",
        "current",
        "2025-10-01",
        None,
        ["billing", "refunds", "partners"],
        "Reembolsos de suscripciones compradas a un socio",
        "Si un socio de Tessel (un distribuidor o una gestoría) te vendió la suscripción, el socio te factura "
        "y te reembolsa según sus propias condiciones; Tessel no puede reembolsar directamente un espacio "
        "facturado por un socio. Pregunta a tu socio, no al soporte de Tessel.",
    ),
]

FAQS: list[tuple[str, str, list[str], str, str]] = [
    (
        "faq-billing",
        "en",
        ["faq", "billing"],
        "Billing questions, answered briefly",
        "Can I get my money back? Often, yes. How long you have depends on whether the plan is monthly or "
        "annual and on when you bought it; the Refund policy has the details.\n\n"
        "When are extra seats charged? Seats follow the seat billing rules of your plan; your next invoice "
        "lists every change.\n\n"
        "Can we pay by bank transfer? Annual plans can. The due date is printed on each invoice.",
    ),
    (
        "faq-api",
        "en",
        ["faq", "api"],
        "Developer questions, answered briefly",
        "Is there a rate limit? Yes. Every request counts toward a limit, and going over it returns an error "
        "with a hint about when to try again. The limits changed in 2026; see API rate limits.\n\n"
        "Do you send events? Yes, through webhooks. Large lists come back in pages.\n\n"
        "Which tokens should I use? Tokens are created by admins; see Create an API token.",
    ),
    (
        "faq-kiosk",
        "en",
        ["faq", "kiosk"],
        "Kiosk questions, answered briefly",
        "Which tablets work? iPads and Android tablets. Can staff clock in without a PIN? No, the kiosk always "
        "asks for one; a photo can be required as well.\n\n"
        "Does the kiosk need the internet? Keep it on Wi-Fi and plugged in. One kiosk can serve one location.",
    ),
    (
        "faq-account",
        "en",
        ["faq", "security"],
        "Account and sign-in questions, answered briefly",
        "How strong must a password be? Tessel checks every new password; the Password and sign-in policy "
        "lists the rules. Is two-factor authentication available? Yes, for every role, with any authenticator "
        "app.\n\n"
        "What happens to our data if we leave? You can export it first; what happens after deletion is "
        "described in the data retention policy.",
    ),
    (
        "faq-nomina-es",
        "es",
        ["faq", "payroll"],
        "Preguntas frecuentes: fichajes y nómina",
        "¿Puedo corregir un fichaje? Sí, mientras el fichaje no esté bloqueado. ¿Cuándo se bloquea? Depende "
        "de la política de bloqueo de fichajes.\n\n"
        "¿Qué pasa si la exportación de nómina falla? El mensaje de error trae un código; busca el código en "
        "el centro de ayuda.",
    ),
    (
        "faq-privacidade-pt",
        "pt",
        ["faq", "privacy"],
        "Perguntas frequentes: privacidade e dados",
        "Por quanto tempo vocês guardam nossos dados? Enquanto a conta existir. O que acontece depois de "
        "excluir o espaço de trabalho está na política de retenção de dados.\n\n"
        "Posso pedir reembolso? Depende do plano; veja a política de reembolso.",
    ),
]
