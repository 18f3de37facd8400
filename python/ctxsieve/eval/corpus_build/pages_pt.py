"""Portuguese (Brazilian) pages of the Tessel help centre: translations of a few policies (each
with its superseded version, as in English), error articles, how-tos and noise. The translations
say the same as their English originals; a Portuguese question is labelled with the Portuguese
page, the English original then counting as neither relevant nor distractor."""

from __future__ import annotations

from ctxsieve.eval.corpus_build.errors import ErrorEntry
from ctxsieve.eval.corpus_build.howtos import HowTo
from ctxsieve.eval.corpus_build.noise import Noise
from ctxsieve.eval.corpus_build.policies import Policy

POLICIES_PT: list[Policy] = [
    (
        "pol-reembolsos-2024-pt",
        "pt",
        "superseded",
        "2024-02-01",
        "pol-reembolsos-2025-pt",
        ["billing", "refunds"],
        "Política de reembolso (2024)",
        "Planos anuais do Tessel podem ser reembolsados integralmente se você pedir em até 14 dias após a "
        "compra. Planos mensais não são reembolsáveis: ao cancelar, o espaço de trabalho continua ativo até o "
        "fim do mês já pago.\n\n"
        "O reembolso volta para a forma de pagamento original e leva de 5 a 10 dias úteis.",
    ),
    (
        "pol-reembolsos-2025-pt",
        "pt",
        "current",
        "2025-09-15",
        None,
        ["billing", "refunds"],
        "Política de reembolso",
        "Esta política substitui a de 2024 a partir de 15 de setembro de 2025.\n\n"
        "Planos anuais: reembolso integral em até 30 dias após a compra. Depois disso, clientes Business e "
        "Enterprise podem pedir o reembolso proporcional dos meses inteiros ainda não iniciados; planos "
        "anuais Starter não são reembolsáveis após o 30º dia.\n\n"
        "Planos mensais: a primeira cobrança de uma assinatura nova pode ser reembolsada em até 7 dias. As "
        "cobranças seguintes não são reembolsadas, mas o cancelamento impede a próxima.\n\n"
        "O valor volta para a forma de pagamento original em até 10 dias úteis. Peça em Cobrança > Faturas > "
        "Solicitar reembolso ou pelo suporte.",
    ),
    (
        "pol-retencao-2024-pt",
        "pt",
        "superseded",
        "2024-03-10",
        "pol-retencao-2025-pt",
        ["privacy", "retention"],
        "Retenção de dados após excluir um espaço de trabalho (2024)",
        "Quando um proprietário exclui um espaço de trabalho, o Tessel guarda escalas, folhas de ponto e "
        "cadastros de funcionários por 90 dias, para que uma exclusão acidental possa ser desfeita. Depois de "
        "90 dias os dados são apagados das bases ativas. Os backups são renovados a cada 120 dias.",
    ),
    (
        "pol-retencao-2025-pt",
        "pt",
        "current",
        "2025-06-01",
        None,
        ["privacy", "retention"],
        "Retenção de dados após excluir um espaço de trabalho",
        "Espaços de trabalho excluídos são mantidos por 30 dias. Nesse período o proprietário pode restaurá-lo "
        "pelo e-mail de confirmação ou pedir ao suporte, e ainda pode baixar uma exportação completa.\n\n"
        "No 31º dia o espaço é apagado das bases ativas. Backups criptografados expiram 35 dias depois de "
        "criados, então nenhuma cópia sobrevive mais de 66 dias após a exclusão. Registros de auditoria "
        "exigidos pela legislação trabalhista ficam guardados à parte por 7 anos.",
    ),
]

ERRORS_PT: list[ErrorEntry] = [
    (
        "E-5110",
        "clock-in",
        "Registro de ponto fora da cerca virtual",
        "Ao tocar em Registrar ponto, o funcionário vê 'Você não está no seu local de trabalho'.",
        "O local tem uma cerca virtual e o celular informa uma posição fora dela, ou uma precisão pior que "
        "150 metros, o que é comum em ambientes fechados.",
        "Vá para perto de uma janela ou saia do prédio e tente de novo, e permita a localização precisa para "
        "o Tessel. O gerente pode aumentar o raio da cerca ou aprovar o registro manualmente.",
    ),
    (
        "E-6021",
        "kiosk",
        "PIN bloqueado após tentativas erradas",
        "O funcionário não consegue registrar o ponto no quiosque e vê 'PIN bloqueado'.",
        "Cinco PINs errados seguidos bloqueiam o PIN daquele funcionário em todos os quiosques por 15 minutos.",
        "Espere 15 minutos ou peça ao gerente que redefina o PIN no perfil do funcionário.",
    ),
    (
        "E-7003",
        "payroll",
        "Faltam códigos de pagamento na exportação",
        "A exportação da folha de pagamento para com E-7003 e uma lista de tipos de turno.",
        "Alguns tipos de turno não estão associados a um código de pagamento do seu provedor de folha.",
        "Associe cada tipo de turno listado em Configurações > Folha de pagamento > Códigos de pagamento e "
        "exporte de novo.",
    ),
    (
        "E-2104",
        "billing",
        "Cartão recusado na renovação",
        "A fatura de renovação aparece como falha e os proprietários recebem o e-mail 'Não conseguimos "
        "cobrar seu cartão'.",
        "O banco recusou a cobrança, quase sempre porque o cartão venceu ou o banco bloqueou uma transação "
        "internacional (o Tessel cobra a partir da Irlanda).",
        "Atualize o cartão em Cobrança > Forma de pagamento; a fatura em aberto é cobrada de novo em até uma "
        "hora. Se o cartão for válido, peça ao banco que libere cobranças da Tessel Ltd.",
    ),
    (
        "E-6001",
        "kiosk",
        "Quiosque não pareado",
        "O tablet mostra uma tela com um código de pareamento em vez do teclado de registro de ponto.",
        "Um administrador desfez o pareamento, o local ao qual o quiosque pertencia foi excluído ou os dados "
        "do aplicativo foram apagados.",
        "Um administrador digita o código em Configurações > Quiosques > Parear quiosque e escolhe o local.",
    ),
]

HOWTOS_PT: list[HowTo] = [
    (
        "howto-trocar-turno-pt",
        "pt",
        ["shifts", "swaps"],
        "Trocar turnos entre funcionários",
        "O funcionário abre o turno no aplicativo e toca em Trocar, depois escolhe um colega ou oferece o "
        "turno a todos com o mesmo cargo. Quando um colega aceita, o gerente aprova a troca (ou ela é aprovada "
        "automaticamente, se o local permitir). Trocas que gerariam hora extra sempre precisam do gerente.",
    ),
    (
        "howto-ferias-pt",
        "pt",
        ["leave"],
        "Pedir férias ou folga",
        "Toque em Folgas > Novo pedido, escolha as datas e o tipo de ausência e, se quiser, escreva uma nota. "
        "O gerente recebe o pedido na hora. Folgas aprovadas tiram você das ofertas de turnos abertos nesses "
        "dias; turnos que você já tinha viram turnos abertos.",
    ),
    (
        "howto-quiosque-pt",
        "pt",
        ["kiosk"],
        "Configurar um tablet como quiosque",
        "Instale o Tessel Kiosk em um iPad ou tablet Android e abra o aplicativo: ele mostra um código de "
        "pareamento. No Tessel, vá em Configurações > Quiosques > Parear quiosque, digite o código e escolha o "
        "local. Os funcionários registram o ponto com o PIN e, se quiser, uma foto. Deixe o tablet na tomada "
        "e no Wi-Fi.",
    ),
    (
        "howto-cancelar-pt",
        "pt",
        ["billing"],
        "Cancelar a assinatura",
        "O proprietário cancela em Cobrança > Plano > Cancelar assinatura. O espaço de trabalho continua no "
        "plano pago até o fim do período e depois fica somente leitura. Cancelar não apaga dados; excluir o "
        "espaço de trabalho é outro passo.",
    ),
    (
        "howto-exportar-folha-pt",
        "pt",
        ["payroll"],
        "Exportar folhas de ponto para a folha de pagamento",
        "Depois de aprovar o período, abra Folha de pagamento > Exportar, escolha o período e o formato do seu "
        "provedor (ou o Payroll Connector, se estiver configurado) e clique em Exportar. Antes, o Tessel "
        "confere códigos de pagamento e IDs de folha e lista o que estiver faltando. Só folhas de ponto "
        "aprovadas entram na exportação.",
    ),
]

NOISE_PT: list[Noise] = [
    (
        "blog-pt-escala-fim-de-ano",
        "pt",
        ["blog"],
        "Como montar a escala de fim de ano sem brigas",
        "Dezembro é o mês em que todo mundo quer folga e ninguém quer o turno de 24 de dezembro. Conversamos "
        "com três gerentes de restaurante sobre como distribuem feriados, trocas de turno e horas extras de "
        "forma justa, e sobre a planilha que todos eles abandonaram.",
    ),
    (
        "novidades-2026-10-pt",
        "pt",
        ["release-notes"],
        "Novidades de outubro de 2026",
        "O quiosque ganhou um modo escuro e o aplicativo mostra o saldo de férias na tela inicial. A "
        "exportação da folha de pagamento agora mostra quanto tempo levou cada etapa. Corrigimos um erro que "
        "fazia alguns PINs aparecerem como bloqueados sem motivo.",
    ),
    (
        "caso-sucesso-restaurante-pt",
        "pt",
        ["case-study"],
        "Caso de sucesso: uma rede de restaurantes em Curitiba",
        "Com 14 restaurantes e mais de 300 funcionários, a rede passava dois dias por mês fechando a folha. "
        "Com quiosques na entrada de cada cozinha e cercas virtuais para quem registra o ponto no celular, o "
        "fechamento caiu para uma tarde. O gerente de operações conta o que deu errado no primeiro mês.",
    ),
    (
        "comunidade-pt-reembolso",
        "pt",
        ["community"],
        "Fórum da comunidade: alguém já pediu reembolso do plano anual?",
        "Pergunta de um usuário: 'Assinei o anual e me arrependi, alguém conseguiu o dinheiro de volta?' "
        "Respostas: 'Comigo foi rápido, mas foi em 2024.' 'Depende do plano, acho.' 'Abre um chamado, eles "
        "respondem.' Nenhuma resposta foi marcada como solução.",
    ),
]
