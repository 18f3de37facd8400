"""Tessel policies, each with the version it replaced (kept in the knowledge base and labelled
``superseded``, as real help centres keep old pages around). Written by hand for the eval."""

from __future__ import annotations

# (id, lang, status, updated, superseded_by, tags, title, text)
Policy = tuple[str, str, str, str, str | None, list[str], str, str]

POLICIES: list[Policy] = [
    (
        "pol-refunds-2024",
        "en",
        "superseded",
        "2024-02-01",
        "pol-refunds-2025",
        ["billing", "refunds"],
        "Refund policy (2024)",
        "Annual Tessel plans can be refunded in full if you ask within 14 days of the purchase date. "
        "Monthly plans are not refundable: when you cancel, the workspace stays active until the end of "
        "the month you already paid for.\n\n"
        "Refunds go back to the original payment method and take 5 to 10 business days to appear. "
        "Add-ons such as the Payroll Connector follow the plan they are attached to.",
    ),
    (
        "pol-refunds-2025",
        "en",
        "current",
        "2025-09-15",
        None,
        ["billing", "refunds"],
        "Refund policy",
        "This policy replaces the 2024 refund policy from 15 September 2025.\n\n"
        "Annual plans: a full refund is available within 30 days of purchase. After 30 days, Business and "
        "Enterprise customers can ask for a prorated refund of the whole months they have not started yet; "
        "Starter annual plans are not refundable after day 30.\n\n"
        "Monthly plans: the first charge of a new subscription can be refunded within 7 days. Later monthly "
        "charges are not refunded, but cancelling stops the next one.\n\n"
        "Refunds are issued to the original payment method within 10 business days. Ask from Billing > "
        "Invoices > Request refund, or through support.",
    ),
    (
        "pol-retention-2024",
        "en",
        "superseded",
        "2024-05-10",
        "pol-retention-2025",
        ["data", "privacy"],
        "Data retention after workspace deletion (2024)",
        "When an owner deletes a workspace, Tessel keeps its schedules, timesheets and employee records for "
        "90 days so that an accidental deletion can be undone. After 90 days the data is purged from the "
        "live databases. Backups roll over every 120 days.",
    ),
    (
        "pol-retention-2025",
        "en",
        "current",
        "2025-11-03",
        None,
        ["data", "privacy"],
        "Data retention after workspace deletion",
        "Deleted workspaces are kept for 30 days. During those 30 days an owner can restore the workspace "
        "from the confirmation email or ask support to do it, and can still download a full export "
        "(schedules, timesheets, employees, audit log).\n\n"
        "On day 31 the workspace is purged from the live databases. Encrypted backups expire 35 days after "
        "they are taken, so no copy of the data survives more than 66 days after deletion. Audit log entries "
        "required for payroll compliance are kept separately for 7 years and contain no shift notes.",
    ),
    (
        "pol-ratelimits-2024",
        "en",
        "superseded",
        "2024-01-20",
        "pol-ratelimits-2026",
        ["api", "limits"],
        "API rate limits (2024)",
        "The Tessel REST API allows 600 requests per minute per workspace, shared by every token of that "
        "workspace. Requests above the limit receive HTTP 429 with error E-4290 and should be retried after "
        "one minute.",
    ),
    (
        "pol-ratelimits-2026",
        "en",
        "current",
        "2026-03-01",
        None,
        ["api", "limits"],
        "API rate limits",
        "Since 1 March 2026 rate limits apply per API token, not per workspace. Each token may send 300 "
        "requests per minute with bursts of up to 50 requests in one second. Bulk endpoints (/v2/shifts/bulk "
        "and /v2/timesheets/export) count as 10 requests each.\n\n"
        "A request over the limit gets HTTP 429, error E-4290 and a Retry-After header in seconds; wait that "
        "long before retrying. Enterprise workspaces can ask for a higher limit per token through their "
        "account manager.",
    ),
    (
        "pol-passwords-2024",
        "en",
        "superseded",
        "2024-03-12",
        "pol-passwords-2025",
        ["security", "accounts"],
        "Password policy (2024)",
        "Tessel passwords must have at least 8 characters with one number. Passwords expire every 90 days and "
        "the last 5 passwords cannot be reused. Two-factor authentication is optional for every role.",
    ),
    (
        "pol-passwords-2025",
        "en",
        "current",
        "2025-06-30",
        None,
        ["security", "accounts"],
        "Password and sign-in policy",
        "Passwords need at least 12 characters and are checked against lists of breached passwords. Tessel "
        "no longer forces a password change every 90 days; you are asked to change it only when we detect "
        "it in a breach.\n\n"
        "Two-factor authentication is required for owners and admins, and optional for managers and staff. "
        "Enterprise workspaces can enforce single sign-on (SAML or OIDC); once SSO is enforced, passwords are "
        "disabled for everyone except one break-glass owner account.",
    ),
    (
        "pol-trial-2024",
        "en",
        "superseded",
        "2024-01-05",
        "pol-trial-2025",
        ["billing", "trial"],
        "Free trial (2024)",
        "New workspaces get a 30-day free trial of the Business plan with every feature. No card is needed. "
        "At the end of the trial the workspace moves to the free Starter tier automatically.",
    ),
    (
        "pol-trial-2025",
        "en",
        "current",
        "2025-04-22",
        None,
        ["billing", "trial"],
        "Free trial",
        "New workspaces get a 14-day trial of the Business plan. No card is needed to start. If you need more "
        "time to evaluate, an owner can extend the trial once by 7 days from Settings > Plan, or ask support "
        "before it ends.\n\n"
        "When the trial ends without a subscription, the workspace becomes read-only for 30 days: schedules "
        "can be viewed and exported but not edited. The Payroll Connector is not included in trials.",
    ),
    (
        "pol-support-2024",
        "en",
        "superseded",
        "2024-06-01",
        "pol-support-2026",
        ["support"],
        "Support hours (2024)",
        "Tessel support answers email on weekdays from 9:00 to 17:00 CET. We aim to reply within two business "
        "days. Phone support is not available.",
    ),
    (
        "pol-support-2026",
        "en",
        "current",
        "2026-01-12",
        None,
        ["support"],
        "Support hours and response times",
        "Starter: email support on weekdays, first reply within 2 business days.\n\n"
        "Business: live chat 24 hours a day from Monday 00:00 to Friday 24:00 UTC, first reply within 4 hours.\n\n"
        "Enterprise: 24/7 chat and phone. A priority-1 incident (nobody can clock in, or schedules cannot be "
        "published) gets a first response within 1 hour, and an engineer stays on it until it is resolved "
        "or a workaround is in place.",
    ),
    (
        "pol-seats-2024",
        "en",
        "superseded",
        "2024-02-01",
        "pol-seats-2025",
        ["billing", "seats"],
        "Seat billing (2024)",
        "Seats added during a billing period are free until the next renewal, when they are billed for the "
        "full period. Removing a seat takes effect at renewal.",
    ),
    (
        "pol-seats-2025",
        "en",
        "current",
        "2025-09-15",
        None,
        ["billing", "seats"],
        "Seat billing and proration",
        "A seat is any employee who can sign in or clock in. Seats added in the middle of a billing period "
        "are charged immediately, prorated by day for the rest of the period. Seats you remove are credited "
        "at the next renewal, not refunded. Archived employees do not use a seat; deactivated ones still do "
        "until they are archived.",
    ),
    (
        "pol-timesheet-lock-2024",
        "en",
        "superseded",
        "2024-04-18",
        "pol-timesheet-lock-2026",
        ["timesheets"],
        "Timesheet edit lock (2024)",
        "Timesheets lock automatically 7 days after the end of the shift. Locked timesheets cannot be edited "
        "by anyone; corrections must be entered as a new manual adjustment.",
    ),
    (
        "pol-timesheet-lock-2026",
        "en",
        "current",
        "2026-02-09",
        None,
        ["timesheets", "payroll"],
        "Timesheet edit lock",
        "A timesheet locks when it is included in a payroll export, or 35 days after the shift ends, "
        "whichever comes first. Managers cannot edit locked timesheets.\n\n"
        "Admins can unlock a single timesheet from its detail page. They must type a reason, which is stored "
        "in the audit log with the old and new values. Unlocking a timesheet that was already exported marks "
        "the export as out of date so payroll can re-run it.",
    ),
    (
        "pol-deletion-2024",
        "en",
        "superseded",
        "2024-05-10",
        "pol-deletion-2025",
        ["privacy", "gdpr"],
        "Personal data deletion requests (2024)",
        "Employees can ask their employer to delete their personal data. Tessel completes verified deletion "
        "requests within 30 days.",
    ),
    (
        "pol-deletion-2025",
        "en",
        "current",
        "2025-11-03",
        None,
        ["privacy", "gdpr"],
        "Personal data deletion requests",
        "An employee who wants their personal data deleted should ask their employer first, because the "
        "employer controls the workspace. If the employer agrees, an admin archives the employee and "
        "chooses Erase personal data.\n\n"
        "Requests sent directly to privacy@tessel.example are verified and completed within 10 business days; "
        "we send a confirmation email when they are done. Payroll records the law requires us to keep are "
        "retained with the name replaced by an identifier.",
    ),
    (
        "pol-overtime-2024",
        "en",
        "superseded",
        "2024-03-01",
        "pol-overtime-2025",
        ["scheduling", "overtime"],
        "Overtime approval (2024)",
        "Overtime of up to 2 hours per week is approved automatically. Anything above 2 hours needs a "
        "manager's approval within the week it was worked.",
    ),
    (
        "pol-overtime-2025",
        "en",
        "current",
        "2025-08-01",
        None,
        ["scheduling", "overtime"],
        "Overtime approval",
        "Overtime must be approved by a manager before the shift that causes it starts. Tessel warns the "
        "scheduler when a shift would push an employee over their weekly hours and asks for approval.\n\n"
        "Emergency overtime (someone covering an unplanned absence) can be worked without approval, but the "
        "employee or their manager must flag it within 24 hours. Unflagged overtime is paid but appears on "
        "the compliance report.",
    ),
    (
        "pol-invoices-2024",
        "en",
        "superseded",
        "2024-02-01",
        "pol-invoices-2025",
        ["billing", "invoices"],
        "Invoice payment terms (2024)",
        "Invoices are payable within 15 days (net 15). Overdue workspaces are suspended after 30 days.",
    ),
    (
        "pol-invoices-2025",
        "en",
        "current",
        "2025-09-15",
        None,
        ["billing", "invoices"],
        "Invoice payment terms",
        "Card payments are charged on the invoice date. Annual plans paid by bank transfer have net 30 terms. "
        "An invoice more than 15 days overdue accrues a late fee of 1.5% per month. After 45 days overdue "
        "the workspace becomes read-only until the balance is paid; it is never deleted for non-payment "
        "without 30 days' written notice.",
    ),
    (
        "pol-downgrades-2024",
        "en",
        "superseded",
        "2024-02-01",
        "pol-downgrades-2025",
        ["billing", "plans"],
        "Changing to a smaller plan (2024)",
        "A downgrade takes effect immediately. Features of the higher plan stop working at once and their "
        "data (for example geofences and custom reports) is deleted.",
    ),
    (
        "pol-downgrades-2025",
        "en",
        "current",
        "2025-09-15",
        None,
        ["billing", "plans"],
        "Changing to a smaller plan",
        "A downgrade takes effect at the end of the current billing period; until then you keep every "
        "feature you paid for. Data that belongs to features of the higher plan (geofences, custom reports, "
        "API tokens) is kept read-only for 60 days after the downgrade, so upgrading again restores it.",
    ),
    # Spanish pages: Tessel's help centre is maintained separately for Latin America and Spain.
    (
        "pol-reembolsos-2024-es",
        "es",
        "superseded",
        "2024-02-01",
        "pol-reembolsos-2025-es",
        ["facturación"],
        "Política de reembolsos (2024)",
        "Los planes anuales de Tessel se reembolsan completos si lo solicitas dentro de los 14 días "
        "posteriores a la compra. Los planes mensuales no son reembolsables; al cancelar, el espacio de "
        "trabajo sigue activo hasta el final del mes pagado.",
    ),
    (
        "pol-reembolsos-2025-es",
        "es",
        "current",
        "2025-09-15",
        None,
        ["facturación"],
        "Política de reembolsos",
        "Esta política sustituye a la de 2024 desde el 15 de septiembre de 2025.\n\n"
        "Planes anuales: reembolso completo dentro de los 30 días posteriores a la compra. Pasado ese plazo, "
        "los clientes Business y Enterprise pueden pedir el reembolso proporcional de los meses completos "
        "que aún no han empezado.\n\n"
        "Planes mensuales: el primer cargo de una suscripción nueva se reembolsa si lo pides dentro de 7 "
        "días. El dinero vuelve al medio de pago original en un máximo de 10 días hábiles.",
    ),
    (
        "pol-retencion-2024-es",
        "es",
        "superseded",
        "2024-05-10",
        "pol-retencion-2025-es",
        ["datos"],
        "Conservación de datos tras eliminar un espacio de trabajo (2024)",
        "Cuando el propietario elimina un espacio de trabajo, Tessel conserva sus turnos, fichajes y "
        "empleados durante 90 días por si la eliminación fue un error. Después se borran de forma definitiva.",
    ),
    (
        "pol-retencion-2025-es",
        "es",
        "current",
        "2025-11-03",
        None,
        ["datos"],
        "Conservación de datos tras eliminar un espacio de trabajo",
        "Los espacios de trabajo eliminados se conservan 30 días. Durante ese tiempo el propietario puede "
        "restaurarlo desde el correo de confirmación y descargar una exportación completa.\n\n"
        "El día 31 los datos se borran de las bases de datos activas; las copias de seguridad cifradas "
        "caducan a los 35 días, así que ninguna copia sobrevive más de 66 días.",
    ),
    (
        "pol-horas-extra-2024-es",
        "es",
        "superseded",
        "2024-03-01",
        "pol-horas-extra-2025-es",
        ["turnos"],
        "Aprobación de horas extra (2024)",
        "Hasta 2 horas extra por semana se aprueban automáticamente. Lo que supere ese límite necesita la "
        "aprobación de un responsable dentro de la misma semana.",
    ),
    (
        "pol-horas-extra-2025-es",
        "es",
        "current",
        "2025-08-01",
        None,
        ["turnos"],
        "Aprobación de horas extra",
        "Las horas extra deben aprobarse antes de que empiece el turno que las provoca. Si alguien cubre una "
        "ausencia imprevista puede trabajarlas sin aprobación previa, pero el empleado o su responsable debe "
        "marcarlas como urgencia en un plazo de 24 horas; si no, aparecen en el informe de cumplimiento.",
    ),
]
