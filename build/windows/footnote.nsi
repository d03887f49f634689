; Footnote's Windows installer (NSIS), built by scripts/package-windows.sh,
; which defines VERSION (e.g. 0.1.0-dev.5+gabc1234), NUMVERSION (0.1.0.0),
; WORK (the folder holding the built files) and OUTFILE.
;
; It installs the desktop app (Footnote.exe) and the command-line tool
; (bin\footnote.exe) under Program Files, adds a Start menu entry and an
; uninstaller. The WebView2 runtime is handled as Wails' own installer does:
; when the registry shows it missing, Microsoft's bootstrapper (shipped inside
; the Wails Go module) runs silently. The uninstaller removes only the files
; it installed: the user's data in %APPDATA%\footnote stays.

Unicode true
SetCompressor /SOLID lzma
ManifestDPIAware true
RequestExecutionLevel admin

!include "MUI2.nsh"
!include "x64.nsh"
!include "WinVer.nsh"
!include "LogicLib.nsh"

!define PRODUCT "Footnote"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Footnote"
; WebView2 runtime's client id in EdgeUpdate's registry keys.
!define WEBVIEW2_KEY "Microsoft\EdgeUpdate\Clients\{F3017226-FE2A-4295-8BDF-00C3A9A7E4C5}"

Name "${PRODUCT}"
OutFile "${OUTFILE}"
InstallDir "$PROGRAMFILES64\${PRODUCT}"
InstallDirRegKey HKLM "Software\${PRODUCT}" "InstallDir"
ShowInstDetails show

VIProductVersion "${NUMVERSION}"
VIFileVersion "${NUMVERSION}"
VIAddVersionKey "ProductName" "${PRODUCT}"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "${PRODUCT} installer"
VIAddVersionKey "CompanyName" "Footnote developers"
VIAddVersionKey "LegalCopyright" "Footnote developers"

!define MUI_ICON "${WORK}\footnote.ico"
!define MUI_UNICON "${WORK}\footnote.ico"
!define MUI_ABORTWARNING
!define MUI_FINISHPAGE_RUN "$INSTDIR\Footnote.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Start Footnote"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Function .onInit
  ${IfNot} ${AtLeastWin10}
    MessageBox MB_OK|MB_ICONSTOP "Footnote needs Windows 10 or newer."
    Abort
  ${EndIf}
  ${IfNot} ${IsNativeAMD64}
    MessageBox MB_OK|MB_ICONSTOP "Footnote needs a 64-bit x86 (x64) Windows."
    Abort
  ${EndIf}
  SetRegView 64
FunctionEnd

Function un.onInit
  SetRegView 64
FunctionEnd

Section "Footnote"
  SetShellVarContext all

  ; WebView2: present on Windows 11 and updated Windows 10; otherwise run
  ; Microsoft's bootstrapper, which downloads and installs the runtime.
  ReadRegStr $0 HKLM "SOFTWARE\WOW6432Node\${WEBVIEW2_KEY}" "pv"
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    ReadRegStr $0 HKCU "Software\${WEBVIEW2_KEY}" "pv"
  ${EndIf}
  ${If} $0 == ""
  ${OrIf} $0 == "0.0.0.0"
    DetailPrint "Installing the Microsoft Edge WebView2 runtime"
    InitPluginsDir
    SetOutPath "$PLUGINSDIR"
    File "${WORK}\MicrosoftEdgeWebview2Setup.exe"
    ExecWait '"$PLUGINSDIR\MicrosoftEdgeWebview2Setup.exe" /silent /install' $1
    DetailPrint "WebView2 bootstrapper exit code: $1"
  ${EndIf}

  SetOutPath "$INSTDIR"
  File "${WORK}\Footnote.exe"
  File "${WORK}\CHANGELOG.md"
  File "${WORK}\COPYRIGHT.txt"
  SetOutPath "$INSTDIR\bin"
  File "${WORK}\bin\footnote.exe"

  SetOutPath "$INSTDIR"
  CreateShortcut "$SMPROGRAMS\${PRODUCT}.lnk" "$INSTDIR\Footnote.exe"
  WriteUninstaller "$INSTDIR\uninstall.exe"
  WriteRegStr HKLM "Software\${PRODUCT}" "InstallDir" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayName" "${PRODUCT}"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKLM "${UNINST_KEY}" "Publisher" "Footnote developers"
  WriteRegStr HKLM "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\Footnote.exe"
  WriteRegStr HKLM "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKLM "${UNINST_KEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
  WriteRegStr HKLM "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKLM "${UNINST_KEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
  SetShellVarContext all
  ; Only what the installer put there: never a folder's whole content.
  Delete "$INSTDIR\Footnote.exe"
  Delete "$INSTDIR\CHANGELOG.md"
  Delete "$INSTDIR\COPYRIGHT.txt"
  Delete "$INSTDIR\bin\footnote.exe"
  Delete "$INSTDIR\uninstall.exe"
  RMDir "$INSTDIR\bin"
  RMDir "$INSTDIR"
  Delete "$SMPROGRAMS\${PRODUCT}.lnk"
  DeleteRegKey HKLM "${UNINST_KEY}"
  DeleteRegKey HKLM "Software\${PRODUCT}"
SectionEnd
